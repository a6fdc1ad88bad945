// Registers the store walk's binding (store_check_wrap.cc) on the addon's
// exports; called from the one module initialiser in trie_wrap.cc.
#ifndef SPLITGUARD_STORE_CHECK_WRAP_H_
#define SPLITGUARD_STORE_CHECK_WRAP_H_

#include <napi.h>

namespace splitguard {

// Adds checkStoreFile and storeInUse.
void InitStoreCheck(Napi::Env env, Napi::Object exports);

}  // namespace splitguard

#endif  // SPLITGUARD_STORE_CHECK_WRAP_H_
