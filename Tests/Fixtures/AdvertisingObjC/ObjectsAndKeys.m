#import <CoreBluetooth/CoreBluetooth.h>

@interface LegacyAdvertiser : NSObject {
    CBPeripheralManager *_peripheralManager;
}
@end

@implementation LegacyAdvertiser

- (void)startLegacyAdvertising {
    NSArray *services = [NSArray arrayWithObjects:[CBUUID UUIDWithString:@"181A"], nil];
    NSDictionary *advertisement = [NSDictionary dictionaryWithObjectsAndKeys:
                                                    @"EnvSense", CBAdvertisementDataLocalNameKey,
                                                    services, CBAdvertisementDataServiceUUIDsKey,
                                                    nil];
    [_peripheralManager startAdvertising:advertisement];
}

@end
