#ifndef FLEET_CCURLSHIM_H
#define FLEET_CCURLSHIM_H
#include <curl/curl.h>
#endif
