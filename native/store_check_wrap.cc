// checkStoreFile(path, mapSize): maps an LMDB data file read-only and walks
// it (store_check.h). Returns { problem: string | null, txnid: bigint }, or
// throws an Error carrying `errno` when the file cannot be opened or mapped.
// The mapping lives only for the call. The file must not shrink meanwhile
// (LMDB never shortens data.mdb; a truncation under the walk would be
// SIGBUS, as it would be for LMDB itself).
//
// storeInUse(lockPath): whether some process has the store open. LMDB holds
// a POSIX read lock on the first byte of lock.mdb for as long as an
// environment is open. If this process has the file open, it has the store
// open (and must not probe: closing any descriptor of the file drops every
// POSIX lock the process holds on it). Otherwise an open file description
// lock probe (F_OFD_GETLK) sees another process's lock in any PID namespace,
// where /proc/locks hides those outside the reader's.
#include "store_check_wrap.h"

#include <dirent.h>
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

// open(2) read-only, retried when a signal interrupts it; -1 with errno set on failure.
int OpenReadOnly(const std::string& path) {
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

Napi::Value CheckStoreFileJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "checkStoreFile(path: string, mapSize: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  const uint64_t map_size = info.Length() > 1 && info[1].IsNumber() ? static_cast<uint64_t>(info[1].As<Napi::Number>().DoubleValue()) : 0;
  const int fd = OpenReadOnly(path);
  if (fd < 0) return SystemError(env, "cannot open", path, errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return SystemError(env, "cannot read", path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return SystemError(env, "cannot walk", path, EINVAL);
  }
  StoreCheck result;
  if (st.st_size > 0) {
    void* map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
      const int err = errno;
      close(fd);
      return SystemError(env, "cannot map", path, err);
    }
    result = CheckLmdbFile(static_cast<const uint8_t*>(map), static_cast<size_t>(st.st_size), map_size);
    munmap(map, static_cast<size_t>(st.st_size));
  }
  close(fd);
  Napi::Object out = Napi::Object::New(env);
  out.Set("problem", result.problem.empty() ? env.Null() : Napi::String::New(env, result.problem));
  out.Set("txnid", Napi::BigInt::New(env, result.txnid));
  return out;
}

Napi::Value StoreInUseJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "storeInUse(lockPath: string)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  struct stat lock;
  if (stat(path.c_str(), &lock) != 0) {
    if (errno == ENOENT) return Napi::Boolean::New(env, false);  // never opened: nobody has it
    return SystemError(env, "cannot read", path, errno);
  }
  // Open here already? /proc/self/fd lists this process's descriptors.
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return SystemError(env, "cannot list", "/proc/self/fd", errno);
  bool mine = false;
  while (struct dirent* e = readdir(fds)) {
    struct stat st;
    if (e->d_name[0] == '.' || fstatat(dirfd(fds), e->d_name, &st, 0) != 0) continue;
    if (st.st_dev == lock.st_dev && st.st_ino == lock.st_ino) mine = true;
  }
  closedir(fds);
  if (mine) return Napi::Boolean::New(env, true);
  const int fd = OpenReadOnly(path);
  if (fd < 0) return SystemError(env, "cannot open", path, errno);
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = 0;
  probe.l_len = 1;
  const int r = fcntl(fd, F_OFD_GETLK, &probe);
  const int err = errno;
  close(fd);
  if (r != 0) return SystemError(env, "cannot probe the lock of", path, err);
  return Napi::Boolean::New(env, probe.l_type != F_UNLCK);
}

}  // namespace

void InitStoreCheck(Napi::Env env, Napi::Object exports) {
  exports.Set("checkStoreFile", Napi::Function::New(env, CheckStoreFileJs, "checkStoreFile"));
  exports.Set("storeInUse", Napi::Function::New(env, StoreInUseJs, "storeInUse"));
}

}  // namespace splitguard
