#import <CoreBluetooth/CoreBluetooth.h>
#import "BuildFlavor.h"

@interface FlavorAdvertiser : NSObject
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@end

@implementation FlavorAdvertiser
- (void)startFlavored {
    [self.peripheralManager startAdvertising:@{CBAdvertisementDataLocalNameKey : FLAVOR_NAME}];
}

- (void)startPlain {
    [self.peripheralManager startAdvertising:@{CBAdvertisementDataLocalNameKey : @"Plain"}];
}
@end
