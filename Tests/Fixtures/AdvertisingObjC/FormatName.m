#import <CoreBluetooth/CoreBluetooth.h>
#import <UIKit/UIKit.h>

@interface MeshAdvertiser : NSObject
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@property (nonatomic, copy) NSString *peerID;
@end

@implementation MeshAdvertiser

- (void)startWithPeer {
    NSString *name = [NSString stringWithFormat:@"mesh-%@-100%%", self.peerID];
    [self.peripheralManager startAdvertising:@{CBAdvertisementDataLocalNameKey : name}];
}

- (void)startWithKnownValues {
    NSString *name = [NSString stringWithFormat:@"node-%d-%@", 7, @"a"];
    [self.peripheralManager startAdvertising:@{CBAdvertisementDataLocalNameKey : name}];
}

- (void)startWithDeviceName {
    [self.peripheralManager startAdvertising:@{
        CBAdvertisementDataLocalNameKey : [[UIDevice currentDevice] name]
    }];
}

@end
