// Shared advertising constants of a small heart-rate sensor app.
#import <Foundation/Foundation.h>

#define HRM_LOCAL_NAME @"PulseStrap"
#define HRM_SERVICE_UUID @"180D"
#define BATTERY_SERVICE_UUID @"180F"

extern NSString *const HRMVendorServiceUUIDString;
