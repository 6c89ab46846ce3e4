#import <CoreBluetooth/CoreBluetooth.h>

#if DEBUG
static NSString *const kAdvertisedName = @"Sensor-Debug";
#else
static NSString *const kAdvertisedName = @"Sensor";
#endif

@interface DebugAdvertiser : NSObject
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@end

@implementation DebugAdvertiser
- (void)start {
    [self.peripheralManager startAdvertising:@{
        CBAdvertisementDataLocalNameKey : kAdvertisedName,
        CBAdvertisementDataServiceUUIDsKey : @[ [CBUUID UUIDWithString:@"181C"] ]
    }];
}
@end
