#import <CoreBluetooth/CoreBluetooth.h>

@interface BrokenAdvertiser : NSObject
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@end

@implementation BrokenAdvertiser
- (void)start {
    [self.peripheralManager startAdvertising:@{CBAdvertisementDataLocalNameKey : @"Half"}]
    undeclaredFunction(
}
@end
