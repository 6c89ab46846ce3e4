// A beacon broadcaster's pattern: the region is made once in -init and kept in a property; the
// delegate callback advertises it later.
#import <CoreBluetooth/CoreBluetooth.h>
#import <CoreLocation/CoreLocation.h>

@interface BeaconBroadcaster : NSObject <CBPeripheralManagerDelegate>
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@property (nonatomic, strong) CLBeaconRegion *region;
@end

@implementation BeaconBroadcaster

- (instancetype)init {
    self = [super init];
    if (self) {
        NSUUID *uuid = [[NSUUID alloc] initWithUUIDString:@"5A4BCFCE-174E-4BAC-A814-092E77F6B7E5"];
        self.region = [[CLBeaconRegion alloc] initWithUUID:uuid major:7 minor:42 identifier:@"lobby"];
        self.peripheralManager = [[CBPeripheralManager alloc] initWithDelegate:self queue:nil];
    }
    return self;
}

- (void)peripheralManagerDidUpdateState:(CBPeripheralManager *)peripheral {
    if (peripheral.state == CBManagerStatePoweredOn) {
        [self.peripheralManager startAdvertising:[self.region peripheralDataWithMeasuredPower:@(-59)]];
    }
}

@end
