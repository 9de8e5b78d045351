// Declarations only (see include/CFuzzerDriver.h): the driver itself comes from libFuzzer.
#include "CFuzzerDriver.h"
