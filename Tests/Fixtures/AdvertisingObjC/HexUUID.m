#import <CoreBluetooth/CoreBluetooth.h>

#define CYCLING_POWER_UUID @"0x1818"

@interface CyclingAdvertiser : NSObject
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@property (nonatomic, strong) id anyManager;
@property (nonatomic, assign) BOOL includeName;
@end

@implementation CyclingAdvertiser

- (void)start {
    CBUUID *power = [CBUUID UUIDWithString:CYCLING_POWER_UUID];
    NSMutableDictionary *data = [NSMutableDictionary dictionary];
    data[CBAdvertisementDataServiceUUIDsKey] = @[ [CBUUID UUIDWithString:@"0x180D"], power ];
    [data setObject:@"Crank" forKey:CBAdvertisementDataLocalNameKey];
    if (self.includeName) {
        data[CBAdvertisementDataManufacturerDataKey] = [NSData data];
    }
    [self.peripheralManager startAdvertising:data];
}

- (void)startThroughId {
    [self.anyManager startAdvertising:@{
        CBAdvertisementDataServiceUUIDsKey : @[ [CBUUID UUIDWithNSUUID:[[NSUUID alloc]
                                                  initWithUUIDString:@"0000FEAA-0000-1000-8000-00805F9B34FB"]] ]
    }];
}

- (void)startWithUnknown:(NSDictionary *)advertisement {
    [self.peripheralManager startAdvertising:advertisement];
}

@end
