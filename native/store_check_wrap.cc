// checkStoreFile(path): maps an LMDB data file read-only and walks it
// (store_check.h). Returns { problem: string | null, txnid: number }, or
// throws an Error carrying `errno` when the file cannot be opened or mapped.
// The mapping lives only for the call. The file must not shrink meanwhile
// (LMDB never shortens data.mdb; a truncation under the walk would be
// SIGBUS, as it would be for LMDB itself).
#include "store_check_wrap.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "store_check.h"

namespace splitguard {
namespace {

Napi::Value SystemError(Napi::Env env, const char* what, const std::string& path, int err) {
  Napi::Error e = Napi::Error::New(env, std::string(what) + " " + path + ": " + std::strerror(err));
  e.Set("errno", Napi::Number::New(env, err));
  e.ThrowAsJavaScriptException();
  return env.Undefined();
}

Napi::Value CheckStoreFileJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "checkStoreFile(path: string)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return SystemError(env, "cannot open", path, errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return SystemError(env, "cannot read", path, err);
  }
  StoreCheck result;
  if (st.st_size > 0) {
    void* map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
      const int err = errno;
      close(fd);
      return SystemError(env, "cannot map", path, err);
    }
    result = CheckLmdbFile(static_cast<const uint8_t*>(map), static_cast<size_t>(st.st_size));
    munmap(map, static_cast<size_t>(st.st_size));
  }
  close(fd);
  Napi::Object out = Napi::Object::New(env);
  out.Set("problem", result.problem.empty() ? env.Null() : Napi::String::New(env, result.problem));
  out.Set("txnid", Napi::Number::New(env, static_cast<double>(result.txnid)));
  return out;
}

}  // namespace

void InitStoreCheck(Napi::Env env, Napi::Object exports) {
  exports.Set("checkStoreFile", Napi::Function::New(env, CheckStoreFileJs, "checkStoreFile"));
}

}  // namespace splitguard
