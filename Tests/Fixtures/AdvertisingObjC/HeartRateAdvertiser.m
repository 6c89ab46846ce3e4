#import <CoreBluetooth/CoreBluetooth.h>
#import "AdvertisingConstants.h"

NSString *const HRMVendorServiceUUIDString = @"6E400001-B5A3-F393-E0A9-E50E24DCCA9E";

@interface HeartRateAdvertiser : NSObject <CBPeripheralManagerDelegate>
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@end

@implementation HeartRateAdvertiser

- (void)peripheralManagerDidUpdateState:(CBPeripheralManager *)peripheral {
    if (peripheral.state != CBManagerStatePoweredOn) {
        return;
    }
    [self.peripheralManager startAdvertising:@{
        CBAdvertisementDataLocalNameKey : HRM_LOCAL_NAME,
        CBAdvertisementDataServiceUUIDsKey : @[
            [CBUUID UUIDWithString:HRM_SERVICE_UUID],
            [CBUUID UUIDWithString:BATTERY_SERVICE_UUID],
            [CBUUID UUIDWithString:HRMVendorServiceUUIDString]
        ]
    }];
}

@end
