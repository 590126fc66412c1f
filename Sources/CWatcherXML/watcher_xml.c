/* Every function of this module is `static inline` in include/watcher_xml.h; SwiftPM wants one source file. */
#include "watcher_xml.h"
