#ifndef BLEINSPECT_CBLUETOOTH_SHIM_H
#define BLEINSPECT_CBLUETOOTH_SHIM_H

// The libbluetooth-dev headers, for the HCI socket constants and sockaddr_hci. Only the headers
// are used: nothing from libbluetooth is called, so the binary does not link it.
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>

#endif
