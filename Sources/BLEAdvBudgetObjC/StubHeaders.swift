import Foundation

/// The headers written to a temporary directory given to clang as `-isystem`, so that
/// `#import <CoreBluetooth/CoreBluetooth.h>` and its neighbours parse without an Apple SDK.
///
/// They are not Apple's headers: only the declarations the reader follows (the literals' factory
/// methods, the dictionary and array constructors, `CBUUID`, `CBPeripheralManager`,
/// `CLBeaconRegion`, the advertisement data keys) and enough of the rest for common app code to
/// parse. A class the stub lacks makes clang report an error, which the reader names.
enum StubHeaders {
    /// Writes the headers below `directory` (created as needed), the directory to give as `-isystem`.
    static func write(to directory: URL) throws {
        for (path, text) in files {
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(text.utf8).write(to: url)
        }
    }

    /// Relative path → contents.
    static let files: [(path: String, text: String)] = [
        ("Foundation/Foundation.h", foundation),
        ("CoreBluetooth/CoreBluetooth.h", coreBluetooth),
        ("CoreLocation/CoreLocation.h", coreLocation),
        ("UIKit/UIKit.h", uiKit),
        ("AppKit/AppKit.h", appKit),
        ("Cocoa/Cocoa.h", "#import <AppKit/AppKit.h>\n"),
        (prelude, preludeText),
    ]

    /// Included before every file (`-include`), as an Xcode project's prefix header
    /// (`Prefix.pch`) does: older projects' headers use `CBPeripheralManager` or `UIViewController`
    /// without importing their frameworks, and a header that is not among the sources no longer
    /// brings them in.
    static let prelude = "BLEInspectPrelude.h"
    static let preludeText = """
        #import <Foundation/Foundation.h>
        #import <UIKit/UIKit.h>
        #import <CoreBluetooth/CoreBluetooth.h>
        #import <CoreLocation/CoreLocation.h>

        """

    static let foundation = #"""
        #pragma once
        #ifndef BLEINSPECT_STUB_FOUNDATION
        #define BLEINSPECT_STUB_FOUNDATION 1
        typedef signed char BOOL;
        #define YES ((BOOL)1)
        #define NO ((BOOL)0)
        typedef long NSInteger;
        typedef unsigned long NSUInteger;
        typedef double NSTimeInterval;
        #ifndef nil
        #define nil ((id)0)
        #endif
        #ifndef Nil
        #define Nil ((Class)0)
        #endif
        #define NS_ASSUME_NONNULL_BEGIN _Pragma("clang assume_nonnull begin")
        #define NS_ASSUME_NONNULL_END _Pragma("clang assume_nonnull end")
        #define NS_DESIGNATED_INITIALIZER
        #define NS_UNAVAILABLE
        #define NS_REQUIRES_NIL_TERMINATION __attribute__((sentinel(0, 1)))
        #define NS_FORMAT_FUNCTION(F, A) __attribute__((format(__NSString__, F, A)))
        #define NS_ENUM(T, N) enum N : T N; enum N : T
        #define NS_OPTIONS(T, N) enum N : T N; enum N : T
        #define NS_SWIFT_NAME(N)
        #define API_AVAILABLE(...)
        #define API_UNAVAILABLE(...)
        #define FOUNDATION_EXPORT extern
        #define FOUNDATION_EXTERN extern
        #define NS_INLINE static inline
        #define NS_REFINED_FOR_SWIFT
        #define NS_SWIFT_UNAVAILABLE(M)
        #define UIKIT_EXTERN extern
        #define NSLog(...) ((void)0)

        @class NSString, NSArray, NSDictionary, NSNumber, NSData, NSError;

        @protocol NSObject
        @end
        @protocol NSCopying
        @end
        @protocol NSMutableCopying
        @end
        @protocol NSCoding
        @end
        @protocol NSSecureCoding <NSCoding>
        @end
        @protocol NSFastEnumeration
        @end

        __attribute__((objc_root_class))
        @interface NSObject <NSObject>
        + (instancetype)alloc;
        + (instancetype)new;
        - (instancetype)init;
        - (instancetype)copy;
        - (instancetype)mutableCopy;
        - (BOOL)isEqual:(id)object;
        - (NSString *)description;
        - (Class)class;
        + (Class)class;
        - (BOOL)respondsToSelector:(SEL)aSelector;
        - (BOOL)isKindOfClass:(Class)aClass;
        - (id)performSelector:(SEL)aSelector;
        @end

        @interface NSString : NSObject <NSCopying, NSMutableCopying, NSSecureCoding>
        @property (readonly) NSUInteger length;
        @property (readonly) const char *UTF8String;
        + (instancetype)string;
        + (instancetype)stringWithString:(NSString *)string;
        + (instancetype)stringWithFormat:(NSString *)format, ... NS_FORMAT_FUNCTION(1, 2);
        + (instancetype)stringWithUTF8String:(const char *)bytes;
        - (instancetype)initWithString:(NSString *)string;
        - (instancetype)initWithFormat:(NSString *)format, ... NS_FORMAT_FUNCTION(1, 2);
        - (instancetype)initWithUTF8String:(const char *)bytes;
        - (NSString *)stringByAppendingString:(NSString *)string;
        - (NSString *)stringByAppendingFormat:(NSString *)format, ... NS_FORMAT_FUNCTION(1, 2);
        - (NSString *)substringToIndex:(NSUInteger)index;
        - (NSString *)substringFromIndex:(NSUInteger)index;
        - (BOOL)isEqualToString:(NSString *)string;
        - (BOOL)hasPrefix:(NSString *)prefix;
        @end
        @interface NSMutableString : NSString
        - (void)appendString:(NSString *)string;
        - (void)appendFormat:(NSString *)format, ... NS_FORMAT_FUNCTION(1, 2);
        @end
        @interface NSConstantString : NSString
        @end

        @interface NSValue : NSObject <NSCopying, NSSecureCoding>
        @end
        @interface NSNumber : NSValue
        + (NSNumber *)numberWithChar:(char)value;
        + (NSNumber *)numberWithUnsignedChar:(unsigned char)value;
        + (NSNumber *)numberWithShort:(short)value;
        + (NSNumber *)numberWithUnsignedShort:(unsigned short)value;
        + (NSNumber *)numberWithInt:(int)value;
        + (NSNumber *)numberWithUnsignedInt:(unsigned int)value;
        + (NSNumber *)numberWithLong:(long)value;
        + (NSNumber *)numberWithUnsignedLong:(unsigned long)value;
        + (NSNumber *)numberWithLongLong:(long long)value;
        + (NSNumber *)numberWithUnsignedLongLong:(unsigned long long)value;
        + (NSNumber *)numberWithFloat:(float)value;
        + (NSNumber *)numberWithDouble:(double)value;
        + (NSNumber *)numberWithBool:(BOOL)value;
        + (NSNumber *)numberWithInteger:(NSInteger)value;
        + (NSNumber *)numberWithUnsignedInteger:(NSUInteger)value;
        @property (readonly) int intValue;
        @property (readonly) NSInteger integerValue;
        @property (readonly) BOOL boolValue;
        @end

        @interface NSData : NSObject <NSCopying, NSSecureCoding>
        @property (readonly) NSUInteger length;
        + (instancetype)data;
        + (instancetype)dataWithBytes:(const void *)bytes length:(NSUInteger)length;
        @end
        @interface NSMutableData : NSData
        - (void)appendBytes:(const void *)bytes length:(NSUInteger)length;
        - (void)appendData:(NSData *)other;
        @end

        @interface NSArray<__covariant ObjectType> : NSObject <NSCopying, NSSecureCoding, NSFastEnumeration>
        @property (readonly) NSUInteger count;
        + (instancetype)array;
        + (instancetype)arrayWithObject:(ObjectType)anObject;
        + (instancetype)arrayWithObjects:(const ObjectType[])objects count:(NSUInteger)cnt;
        + (instancetype)arrayWithObjects:(ObjectType)firstObj, ... NS_REQUIRES_NIL_TERMINATION;
        + (instancetype)arrayWithArray:(NSArray<ObjectType> *)array;
        - (instancetype)initWithObjects:(ObjectType)firstObj, ... NS_REQUIRES_NIL_TERMINATION;
        - (ObjectType)objectAtIndex:(NSUInteger)index;
        - (ObjectType)objectAtIndexedSubscript:(NSUInteger)idx;
        - (NSArray<ObjectType> *)arrayByAddingObject:(ObjectType)anObject;
        @end
        @interface NSMutableArray<ObjectType> : NSArray<ObjectType>
        - (void)addObject:(ObjectType)anObject;
        - (void)setObject:(ObjectType)obj atIndexedSubscript:(NSUInteger)idx;
        @end

        @interface NSDictionary<__covariant KeyType, __covariant ObjectType> : NSObject <NSCopying, NSSecureCoding, NSFastEnumeration>
        @property (readonly) NSUInteger count;
        + (instancetype)dictionary;
        + (instancetype)dictionaryWithObject:(ObjectType)object forKey:(KeyType)key;
        + (instancetype)dictionaryWithObjects:(const ObjectType[])objects forKeys:(const KeyType[])keys count:(NSUInteger)cnt;
        + (instancetype)dictionaryWithObjectsAndKeys:(id)firstObject, ... NS_REQUIRES_NIL_TERMINATION;
        + (instancetype)dictionaryWithObjects:(NSArray<ObjectType> *)objects forKeys:(NSArray<KeyType> *)keys;
        + (instancetype)dictionaryWithDictionary:(NSDictionary<KeyType, ObjectType> *)dict;
        - (instancetype)initWithObjectsAndKeys:(id)firstObject, ... NS_REQUIRES_NIL_TERMINATION;
        - (instancetype)initWithDictionary:(NSDictionary<KeyType, ObjectType> *)otherDictionary;
        - (ObjectType)objectForKey:(KeyType)aKey;
        - (ObjectType)objectForKeyedSubscript:(KeyType)key;
        @end
        @interface NSMutableDictionary<KeyType, ObjectType> : NSDictionary<KeyType, ObjectType>
        + (instancetype)dictionaryWithCapacity:(NSUInteger)numItems;
        - (void)setObject:(ObjectType)anObject forKey:(KeyType)aKey;
        - (void)setObject:(ObjectType)obj forKeyedSubscript:(KeyType)key;
        - (void)setValue:(ObjectType)value forKey:(NSString *)key;
        - (void)removeObjectForKey:(KeyType)aKey;
        - (void)addEntriesFromDictionary:(NSDictionary<KeyType, ObjectType> *)otherDictionary;
        @end

        @interface NSUUID : NSObject <NSCopying, NSSecureCoding>
        + (instancetype)UUID;
        - (instancetype)initWithUUIDString:(NSString *)string;
        @property (readonly, copy) NSString *UUIDString;
        @end

        @interface NSError : NSObject
        @property (readonly, copy) NSString *localizedDescription;
        @end

        @interface NSBundle : NSObject
        + (NSBundle *)mainBundle;
        - (id)objectForInfoDictionaryKey:(NSString *)key;
        @property (readonly, copy) NSString *bundleIdentifier;
        @end

        @interface NSUserDefaults : NSObject
        + (NSUserDefaults *)standardUserDefaults;
        - (NSString *)stringForKey:(NSString *)defaultName;
        - (id)objectForKey:(NSString *)defaultName;
        @end

        @interface NSProcessInfo : NSObject
        + (NSProcessInfo *)processInfo;
        @property (readonly, copy) NSString *hostName;
        @property (readonly, copy) NSString *processName;
        @property (readonly, copy) NSString *globallyUniqueString;
        @end

        typedef struct dispatch_queue_s *dispatch_queue_t;
        typedef long dispatch_once_t;
        void dispatch_once(dispatch_once_t *predicate, void (^block)(void));
        void dispatch_async(dispatch_queue_t queue, void (^block)(void));
        dispatch_queue_t dispatch_get_main_queue(void);
        dispatch_queue_t dispatch_queue_create(const char *label, void *attr);
        #endif
        """#

    static let coreBluetooth = #"""
        #pragma once
        #import <Foundation/Foundation.h>

        extern NSString * const CBAdvertisementDataLocalNameKey;
        extern NSString * const CBAdvertisementDataTxPowerLevelKey;
        extern NSString * const CBAdvertisementDataServiceUUIDsKey;
        extern NSString * const CBAdvertisementDataServiceDataKey;
        extern NSString * const CBAdvertisementDataManufacturerDataKey;
        extern NSString * const CBAdvertisementDataOverflowServiceUUIDsKey;
        extern NSString * const CBAdvertisementDataIsConnectable;
        extern NSString * const CBAdvertisementDataSolicitedServiceUUIDsKey;
        extern NSString * const CBPeripheralManagerOptionShowPowerAlertKey;
        extern NSString * const CBPeripheralManagerOptionRestoreIdentifierKey;
        extern NSString * const CBPeripheralManagerRestoredStateServicesKey;
        extern NSString * const CBPeripheralManagerRestoredStateAdvertisementDataKey;

        typedef NS_ENUM(NSInteger, CBManagerState) {
            CBManagerStateUnknown = 0,
            CBManagerStateResetting,
            CBManagerStateUnsupported,
            CBManagerStateUnauthorized,
            CBManagerStatePoweredOff,
            CBManagerStatePoweredOn,
        };
        typedef CBManagerState CBPeripheralManagerState;
        #define CBPeripheralManagerStatePoweredOn CBManagerStatePoweredOn
        #define CBPeripheralManagerStatePoweredOff CBManagerStatePoweredOff
        #define CBPeripheralManagerStateUnknown CBManagerStateUnknown
        #define CBPeripheralManagerStateResetting CBManagerStateResetting
        #define CBPeripheralManagerStateUnsupported CBManagerStateUnsupported
        #define CBPeripheralManagerStateUnauthorized CBManagerStateUnauthorized
        typedef CBManagerState CBCentralManagerState;
        #define CBCentralManagerStatePoweredOn CBManagerStatePoweredOn
        #define CBCentralManagerStatePoweredOff CBManagerStatePoweredOff

        @interface CBUUID : NSObject <NSCopying>
        + (CBUUID *)UUIDWithString:(NSString *)theString;
        + (CBUUID *)UUIDWithData:(NSData *)theData;
        + (CBUUID *)UUIDWithNSUUID:(NSUUID *)theUUID;
        @property (nonatomic, readonly) NSData *data;
        @property (nonatomic, readonly) NSString *UUIDString;
        @end

        @interface CBAttribute : NSObject
        @property (readonly, nonatomic) CBUUID *UUID;
        @end
        @interface CBService : CBAttribute
        @end
        @interface CBMutableService : CBService
        - (instancetype)initWithType:(CBUUID *)UUID primary:(BOOL)isPrimary;
        @property (retain, readwrite, nonatomic) NSArray *characteristics;
        @end
        @interface CBCharacteristic : CBAttribute
        @property (readonly, nonatomic) NSData *value;
        @end
        @interface CBMutableCharacteristic : CBCharacteristic
        - (instancetype)initWithType:(CBUUID *)UUID properties:(NSUInteger)properties value:(NSData *)value permissions:(NSUInteger)permissions;
        @end
        @interface CBCentral : NSObject
        @end
        @interface CBATTRequest : NSObject
        @end

        @class CBPeripheralManager;
        @protocol CBPeripheralManagerDelegate <NSObject>
        - (void)peripheralManagerDidUpdateState:(CBPeripheralManager *)peripheral;
        @end

        @interface CBManager : NSObject
        @property (nonatomic, assign, readonly) CBManagerState state;
        @end
        @interface CBPeripheralManager : CBManager
        @property (nonatomic, weak) id<CBPeripheralManagerDelegate> delegate;
        @property (nonatomic, assign, readonly) BOOL isAdvertising;
        - (instancetype)init;
        - (instancetype)initWithDelegate:(id<CBPeripheralManagerDelegate>)delegate queue:(dispatch_queue_t)queue;
        - (instancetype)initWithDelegate:(id<CBPeripheralManagerDelegate>)delegate queue:(dispatch_queue_t)queue options:(NSDictionary<NSString *, id> *)options;
        - (void)startAdvertising:(NSDictionary<NSString *, id> *)advertisementData;
        - (void)stopAdvertising;
        - (void)addService:(CBMutableService *)service;
        - (void)removeAllServices;
        - (BOOL)updateValue:(NSData *)value forCharacteristic:(CBMutableCharacteristic *)characteristic onSubscribedCentrals:(NSArray *)centrals;
        @end
        """#

    static let coreLocation = #"""
        #pragma once
        #import <Foundation/Foundation.h>

        typedef unsigned short CLBeaconMajorValue;
        typedef unsigned short CLBeaconMinorValue;

        @interface CLRegion : NSObject
        @property (readonly, copy) NSString *identifier;
        @end
        @interface CLBeaconRegion : CLRegion
        - (instancetype)initWithUUID:(NSUUID *)uuid identifier:(NSString *)identifier;
        - (instancetype)initWithUUID:(NSUUID *)uuid major:(CLBeaconMajorValue)major identifier:(NSString *)identifier;
        - (instancetype)initWithUUID:(NSUUID *)uuid major:(CLBeaconMajorValue)major minor:(CLBeaconMinorValue)minor identifier:(NSString *)identifier;
        - (instancetype)initWithProximityUUID:(NSUUID *)proximityUUID identifier:(NSString *)identifier;
        - (instancetype)initWithProximityUUID:(NSUUID *)proximityUUID major:(CLBeaconMajorValue)major identifier:(NSString *)identifier;
        - (instancetype)initWithProximityUUID:(NSUUID *)proximityUUID major:(CLBeaconMajorValue)major minor:(CLBeaconMinorValue)minor identifier:(NSString *)identifier;
        - (NSMutableDictionary<NSString *, id> *)peripheralDataWithMeasuredPower:(NSNumber *)measuredPower;
        @property (readonly, nonatomic, copy) NSUUID *UUID;
        @property (readonly, nonatomic, copy) NSNumber *major;
        @property (readonly, nonatomic, copy) NSNumber *minor;
        @end
        typedef int CLAuthorizationStatus;
        enum {
            kCLAuthorizationStatusNotDetermined = 0,
            kCLAuthorizationStatusRestricted = 1,
            kCLAuthorizationStatusDenied = 2,
            kCLAuthorizationStatusAuthorizedAlways = 3,
            kCLAuthorizationStatusAuthorizedWhenInUse = 4,
            kCLAuthorizationStatusAuthorized = 3
        };
        typedef long CLProximity;
        @interface CLBeacon : NSObject
        @property (readonly, nonatomic, copy) NSUUID *UUID;
        @property (readonly, nonatomic, copy) NSNumber *major;
        @property (readonly, nonatomic, copy) NSNumber *minor;
        @property (readonly, nonatomic) CLProximity proximity;
        @property (readonly, nonatomic) long rssi;
        @end
        @protocol CLLocationManagerDelegate <NSObject>
        @end
        @interface CLLocationManager : NSObject
        @property (weak, nonatomic) id<CLLocationManagerDelegate> delegate;
        + (CLAuthorizationStatus)authorizationStatus;
        @property (readonly, nonatomic) CLAuthorizationStatus authorizationStatus;
        - (void)requestWhenInUseAuthorization;
        - (void)requestAlwaysAuthorization;
        - (void)startMonitoringForRegion:(CLRegion *)region;
        - (void)stopMonitoringForRegion:(CLRegion *)region;
        - (void)startRangingBeaconsInRegion:(CLBeaconRegion *)region;
        - (void)stopRangingBeaconsInRegion:(CLBeaconRegion *)region;
        - (void)startUpdatingLocation;
        - (void)stopUpdatingLocation;
        @end
        """#

    static let uiKit = #"""
        #pragma once
        #import <Foundation/Foundation.h>

        @interface UIDevice : NSObject
        + (UIDevice *)currentDevice;
        @property (nonatomic, readonly, copy) NSString *name;
        @property (nonatomic, readonly, copy) NSString *model;
        @property (nonatomic, readonly, copy) NSString *systemName;
        @property (nonatomic, readonly, copy) NSString *systemVersion;
        @property (nonatomic, readonly, copy) NSUUID *identifierForVendor;
        @end
        @interface UIResponder : NSObject
        @end
        @interface UIView : UIResponder
        @end
        @interface UIViewController : UIResponder
        @property (nonatomic, strong) UIView *view;
        @property (nonatomic, copy) NSString *title;
        @property (nonatomic, readonly, strong) UIViewController *navigationController;
        - (instancetype)initWithNibName:(NSString *)nibNameOrNil bundle:(NSBundle *)nibBundleOrNil;
        - (void)viewDidLoad;
        - (void)viewWillAppear:(BOOL)animated;
        - (void)viewDidAppear:(BOOL)animated;
        - (void)viewWillDisappear:(BOOL)animated;
        - (void)viewDidDisappear:(BOOL)animated;
        - (void)didReceiveMemoryWarning;
        - (void)presentViewController:(UIViewController *)viewControllerToPresent animated:(BOOL)flag
                           completion:(void (^)(void))completion;
        - (void)dismissViewControllerAnimated:(BOOL)flag completion:(void (^)(void))completion;
        @end
        @interface UITableViewController : UIViewController
        @end
        @interface UIApplication : UIResponder
        + (UIApplication *)sharedApplication;
        @end
        @protocol UIApplicationDelegate <NSObject>
        @end
        """#

    static let appKit = #"""
        #pragma once
        #import <Foundation/Foundation.h>

        @interface NSHost : NSObject
        + (instancetype)currentHost;
        @property (readonly, copy) NSString *localizedName;
        @property (readonly, copy) NSString *name;
        @end
        @interface NSResponder : NSObject
        @end
        @interface NSView : NSResponder
        @end
        @interface NSViewController : NSResponder
        - (void)viewDidLoad;
        @end
        @interface NSApplication : NSResponder
        + (NSApplication *)sharedApplication;
        @end
        @protocol NSApplicationDelegate <NSObject>
        @end
        """#
}
