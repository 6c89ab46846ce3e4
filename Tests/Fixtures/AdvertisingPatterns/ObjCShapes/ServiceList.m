// A peripheral library's pattern: the advertised UUIDs are collected from the services added at
// run time, so how many there are is not known; the name is a default.
#import <CoreBluetooth/CoreBluetooth.h>

/** The service every build adds first. */
static NSString *const kPrimaryService = @"AE11E524-2034-40F8-96D3-5E1028526348";

@interface ServiceList : NSObject
@property (nonatomic, strong) CBPeripheralManager *manager;
@property (nonatomic, strong) NSArray<CBMutableService *> *services;
@end

@implementation ServiceList

- (void)startWithAddedServices {
    NSMutableArray *uuids = [NSMutableArray array];
    for (CBMutableService *service in self.services) {
        [uuids addObject:service.UUID];
    }
    [self.manager startAdvertising:@{CBAdvertisementDataServiceUUIDsKey : uuids,
                                     CBAdvertisementDataLocalNameKey : @"periph-default-name"}];
}

- (void)startPrimary {
    [self.manager startAdvertising:@{CBAdvertisementDataServiceUUIDsKey : @[ [CBUUID UUIDWithString:kPrimaryService] ]}];
}

@end
