#import <CoreBluetooth/CoreBluetooth.h>

static NSString *const kLockName = @"Door" "Lock";
static NSString *const kLockServiceUUID = @"8E2F0C3A-7B4D-4F6A-9C1E-2D5B8A7F3E10";
static NSString *kMutableName = @"Mutable";

@interface LockAdvertiser : NSObject
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@end

@implementation LockAdvertiser

- (void)start {
    NSString *const localKey = CBAdvertisementDataLocalNameKey;
    [self.peripheralManager startAdvertising:@{
        localKey : kLockName,
        CBAdvertisementDataServiceUUIDsKey : @[ [CBUUID UUIDWithString:kLockServiceUUID] ]
    }];
}

- (void)startWithMutableName {
    [self.peripheralManager startAdvertising:@{CBAdvertisementDataLocalNameKey : kMutableName}];
}

@end
