// Half a file: an edit stopped in the middle of a method.
#import <Foundation/Foundation.h>

@implementation Half
- (void)configure {
    NSString *name = @"Half"
