#import <CoreBluetooth/CoreBluetooth.h>
#import <CoreLocation/CoreLocation.h>

static NSString *const kBeaconUUID = @"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0";

@interface BeaconAdvertiser : NSObject
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@end

@implementation BeaconAdvertiser

- (void)startBeacon {
    NSUUID *uuid = [[NSUUID alloc] initWithUUIDString:kBeaconUUID];
    CLBeaconRegion *region = [[CLBeaconRegion alloc] initWithUUID:uuid major:100 minor:7 identifier:@"shop"];
    NSDictionary *beaconData = [region peripheralDataWithMeasuredPower:@(-59)];
    [self.peripheralManager startAdvertising:beaconData];
}

- (void)startCalibratedBeacon:(CLBeaconRegion *)region {
    [self.peripheralManager startAdvertising:[region peripheralDataWithMeasuredPower:nil]];
}

@end
