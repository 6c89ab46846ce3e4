// The advertised name depends on the build configuration.
#ifdef DEBUG
#define FLAVOR_NAME @"Flavor-Beta"
#else
#define FLAVOR_NAME @"Flavor"
#endif
