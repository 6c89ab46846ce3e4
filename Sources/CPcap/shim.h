#ifndef BLEINSPECT_CPCAP_SHIM_H
#define BLEINSPECT_CPCAP_SHIM_H
#include <pcap/pcap.h>
#endif
