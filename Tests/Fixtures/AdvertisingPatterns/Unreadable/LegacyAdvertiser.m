// An advertiser that imports a pod's header the checker does not have: clang stops at the import,
// so the call below cannot be read, and the run must say so.
#import <CoreBluetooth/CoreBluetooth.h>
#import <VendorKit/VendorAdvertising.h>

@implementation LegacyAdvertiser
- (void)start {
    [self.manager startAdvertising:@{CBAdvertisementDataLocalNameKey : VENDOR_DEVICE_NAME}];
}
@end
