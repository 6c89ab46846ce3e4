#import <Foundation/Foundation.h>

// Names that look like CoreBluetooth's but are not: none of these is a startAdvertising: call.

@interface FlutterMethodCall : NSObject
@property (nonatomic, readonly, copy) NSString *method;
@end

@interface FakeChannelHandler : NSObject
- (void)handleMethodCall:(FlutterMethodCall *)call;
@end

@interface MockAdvertiser : NSObject
- (void)startAdvertising:(NSDictionary *)advertisementData;
- (void)startAdvertising;
@end

@implementation MockAdvertiser
- (void)startAdvertising:(NSDictionary *)advertisementData {
}
- (void)startAdvertising {
}
@end

@implementation FakeChannelHandler
- (void)handleMethodCall:(FlutterMethodCall *)call {
    MockAdvertiser *mock = [MockAdvertiser new];
    if ([call.method isEqualToString:@"startAdvertising"]) {
        [mock startAdvertising:@{@"kCBAdvDataLocalName" : @"MockName"}];
        [mock startAdvertising];
    }
}
@end
