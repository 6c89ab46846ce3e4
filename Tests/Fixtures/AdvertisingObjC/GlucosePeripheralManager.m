#import <CoreBluetooth/CoreBluetooth.h>

// A CBPeripheralManager subclass that advertises itself, with the other dictionary constructors.

@interface GlucosePeripheralManager : CBPeripheralManager
@end

@implementation GlucosePeripheralManager

- (void)startGlucose {
    NSArray *keys = @[ CBAdvertisementDataLocalNameKey, CBAdvertisementDataServiceUUIDsKey ];
    NSArray *values =
        @[ [NSString stringWithString:@"Gluco"], [NSArray arrayWithObject:[CBUUID UUIDWithString:@"1808"]] ];
    [super startAdvertising:[NSDictionary dictionaryWithObjects:values forKeys:keys]];
}

- (void)startSingle {
    [self startAdvertising:[NSDictionary dictionaryWithObject:@"Solo" forKey:@"kCBAdvDataLocalName"]];
}

- (void)startWithServices:(NSArray *)services {
    [self startAdvertising:@{
        CBAdvertisementDataServiceUUIDsKey : services,
        CBAdvertisementDataManufacturerDataKey : [NSData data]
    }];
}

- (void)startWithExtra:(CBUUID *)extra {
    NSMutableDictionary *data = [NSMutableDictionary new];
    void (^addName)(void) = ^{
        data[CBAdvertisementDataLocalNameKey] = @"Later";
    };
    addName();
    data[CBAdvertisementDataServiceUUIDsKey] = @[ [CBUUID UUIDWithString:@"1808"], extra ];
    [self startAdvertising:data];
}

@end
