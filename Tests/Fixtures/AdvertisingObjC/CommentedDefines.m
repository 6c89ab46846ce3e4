#import <CoreBluetooth/CoreBluetooth.h>

// #define SENSOR_NAME @"OldSensorName"
#define SENSOR_NAME @"Thermo-7"

@interface ThermoPeripheral : NSObject
@property (nonatomic, strong) CBPeripheralManager *manager;
@end

@implementation ThermoPeripheral

- (void)advertise {
#if 0
    [self.manager startAdvertising:@{CBAdvertisementDataLocalNameKey : @"NeverBuilt"}];
#endif
    /* [self.manager startAdvertising:@{CBAdvertisementDataLocalNameKey : @"Commented"}]; */
    [self.manager startAdvertising:@{CBAdvertisementDataLocalNameKey : SENSOR_NAME}];
}

@end
