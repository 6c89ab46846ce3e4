#import <CoreBluetooth/CoreBluetooth.h>

namespace scale {
constexpr int kWeightServiceShort = 0x181D;
}

static NSString *const kScaleName = @"SmartScale";

@interface ScaleAdvertiser : NSObject
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@end

@implementation ScaleAdvertiser
- (void)start {
    auto services = @[ [CBUUID UUIDWithString:@"181D"] ];
    [self.peripheralManager startAdvertising:@{
        CBAdvertisementDataLocalNameKey : kScaleName,
        CBAdvertisementDataServiceUUIDsKey : services
    }];
}
@end
