// An Xcode template view controller: its own header is not among the sources given, and it calls
// UIKit methods the stub headers may not have; the call is still read.
#import "ViewController.h"
#import <CoreBluetooth/CoreBluetooth.h>

#define kPeripheralName @"Demo peripheral of the lab"

@interface ViewController () <CBPeripheralManagerDelegate>
@property (nonatomic, strong) CBPeripheralManager *peripheralManager;
@end

@implementation ViewController

- (void)viewDidLoad {
    [super viewDidLoad];
    self.peripheralManager = [[CBPeripheralManager alloc] initWithDelegate:self queue:nil];
}

- (void)didReceiveMemoryWarning {
    [super didReceiveMemoryWarning];
}

- (void)peripheralManagerDidUpdateState:(CBPeripheralManager *)peripheral {
    if (peripheral.state == CBManagerStatePoweredOn) {
        [self.peripheralManager startAdvertising:@{CBAdvertisementDataLocalNameKey : kPeripheralName}];
    }
}

@end
