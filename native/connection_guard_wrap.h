// Registers the connection guard's binding (connection_guard_wrap.cc) on the
// addon's exports; called from the one module initialiser in trie_wrap.cc.
#ifndef SPLITGUARD_CONNECTION_GUARD_WRAP_H_
#define SPLITGUARD_CONNECTION_GUARD_WRAP_H_

#include <napi.h>

namespace splitguard {

// Adds ConnectionGuard, raiseFileLimit and connectionGuardStatuses.
void InitConnectionGuard(Napi::Env env, Napi::Object exports);

}  // namespace splitguard

#endif  // SPLITGUARD_CONNECTION_GUARD_WRAP_H_
