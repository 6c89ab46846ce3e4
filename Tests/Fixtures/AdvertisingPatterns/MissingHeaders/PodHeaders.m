// A file that imports a pod's header and the app delegate, neither among the scanned sources and
// neither needed by this code: clang reads it with empty stand-ins, and the call is checked.
#import <CoreBluetooth/CoreBluetooth.h>
#import <Analytics/SEGAnalytics.h>
#import "AppDelegate.h"

@interface PodAdvertiser : NSObject
@property (nonatomic, strong) CBPeripheralManager *manager;
@end

@implementation PodAdvertiser
- (void)start {
    [self.manager startAdvertising:@{CBAdvertisementDataLocalNameKey : @"Pod"}];
}
@end
