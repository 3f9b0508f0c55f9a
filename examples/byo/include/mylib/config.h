// Found through target_include_directories(mylib_stress ...), set after
// atomstress_add_suite: the host probe sees it, as the real compile does.
#pragma once
#ifndef MYLIB_CONFIGURED_AFTER
#error "mylib: MYLIB_CONFIGURED_AFTER is set on the target after atomstress_add_suite"
#endif
#define MYLIB_SATURATED 0xffffffffu
