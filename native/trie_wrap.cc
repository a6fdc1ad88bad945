// The N-API binding: a thin shell over trie_reader. Cold paths (open, bad
// arguments) throw; lookups return record indices (0 = no data).
//
// Lifetime: the mapping is owned by a shared_ptr. The wrap holds one
// reference, and every ArrayBuffer handed to JavaScript by buffer() holds
// another, released by its finalizer. Wraps for the same file in several
// threads share one mapping (MappedFile::OpenShared). close() drops only the wrap's
// reference, so JavaScript views stay readable until they are collected and
// the file is unmapped after the last reader is gone.
#include <napi.h>

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "connection_guard_wrap.h"
#include "store_check_wrap.h"
#include "crc32c.h"
#include "trie_reader.h"

namespace splitguard {
namespace {

Napi::Error StatusError(Napi::Env env, Status s, const std::string& path, int sys_errno) {
  Napi::Error e = Napi::Error::New(env, StatusMessage(s));
  e.Set("code", Napi::String::New(env, StatusName(s)));
  e.Set("status", Napi::Number::New(env, static_cast<int>(s)));
  if (!path.empty()) e.Set("path", Napi::String::New(env, path));
  if (sys_errno != 0) e.Set("errno", Napi::Number::New(env, sys_errno));
  return e;
}

Napi::Value ArgError(Napi::Env env, const char* message) {
  Napi::TypeError e = Napi::TypeError::New(env, message);
  e.Set("code", Napi::String::New(env, "ipdb_invalid_argument"));
  e.ThrowAsJavaScriptException();
  return env.Undefined();
}

class IpTrieWrap : public Napi::ObjectWrap<IpTrieWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "IpTrie",
                       {
                           InstanceMethod<&IpTrieWrap::Buffer>("buffer"),
                           InstanceMethod<&IpTrieWrap::Info>("info"),
                           InstanceMethod<&IpTrieWrap::LookupBytes>("lookup"),
                           InstanceMethod<&IpTrieWrap::LookupBatch4>("lookupBatch4"),
                           InstanceMethod<&IpTrieWrap::LookupBatch16>("lookupBatch16"),
                           InstanceMethod<&IpTrieWrap::Close>("close"),
                       });
  }

  // new IpTrie(path: string, verifyChecksum: boolean)
  explicit IpTrieWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<IpTrieWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 2 || !info[0].IsString() || !info[1].IsBoolean()) {
      ArgError(env, "IpTrie(path, verifyChecksum) expects a string and a boolean");
      return;
    }
    std::string path = info[0].As<Napi::String>().Utf8Value();
    ValidateOptions options;
    options.verify_checksum = info[1].As<Napi::Boolean>().Value();
    int sys_errno = 0;
    Status s = MappedFile::OpenShared(path.c_str(), options, &file_, &view_, &sys_errno);
    if (s != Status::kOk) {
      StatusError(env, s, path, sys_errno).ThrowAsJavaScriptException();
      return;
    }
    file_->AddReader();
  }

  // A handle collected without close() stops being a reader too.
  ~IpTrieWrap() override {
    if (file_) file_->DropReader();
  }

 private:
  bool Closed(Napi::Env env) {
    if (file_) return false;
    Napi::Error e = Napi::Error::New(env, "the database has been closed");
    e.Set("code", Napi::String::New(env, "ipdb_closed"));
    e.ThrowAsJavaScriptException();
    return true;
  }

  Napi::Value Buffer(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (Closed(env)) return env.Undefined();
    auto* hold = new std::shared_ptr<const MappedFile>(file_);
    return Napi::ArrayBuffer::New(
        env, const_cast<uint8_t*>(file_->data()), file_->size(),
        [](Napi::Env, void*, std::shared_ptr<const MappedFile>* h) { delete h; }, hold);
  }

  Napi::Value Info(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (Closed(env)) return env.Undefined();
    const TrieView& v = view_;
    Napi::Object o = Napi::Object::New(env);
    auto num = [&](const char* k, double x) { o.Set(k, Napi::Number::New(env, x)); };
    num("formatVersion", v.version);
    num("buildTimeMs", static_cast<double>(v.build_time_ms));
    num("size", static_cast<double>(v.size));
    num("checksum", v.checksum);
    num("v4Ranges", v.v4_ranges);
    num("v6Ranges", v.v6_ranges);
    num("nodes", v.nodes);
    num("entries", v.entries);
    num("records", v.records);
    num("dirCount", v.dir_count);
    num("feedCount", v.feed_count);
    num("stringBytes", v.string_bytes);
    num("sourceOffset", v.source_off);
    num("sourceLength", v.source_len);
    num("versionOffset", v.data_version_off);
    num("versionLength", v.data_version_len);
    Napi::Array sections = Napi::Array::New(env, kSectionCount);
    for (uint32_t s = 0; s < kSectionCount; s++) {
      Napi::Object sec = Napi::Object::New(env);
      sec.Set("offset", Napi::Number::New(env, static_cast<double>(v.section_offset[s])));
      sec.Set("size", Napi::Number::New(env, static_cast<double>(v.section_size[s])));
      sections.Set(s, sec);
    }
    o.Set("sections", sections);
    return o;
  }

  // lookup(addr: Uint8Array of 4 or 16 bytes) -> record index
  Napi::Value LookupBytes(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (Closed(env)) return env.Undefined();
    if (info.Length() < 1 || !info[0].IsTypedArray() ||
        info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      return ArgError(env, "lookup(address) expects a Uint8Array");
    Napi::Uint8Array a = info[0].As<Napi::Uint8Array>();
    uint32_t rec;
    if (a.ElementLength() == 4) {
      const uint8_t* b = a.Data();
      rec = Lookup4(view_, (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3]);
    } else if (a.ElementLength() == 16) {
      rec = Lookup16(view_, a.Data());
    } else {
      return ArgError(env, "lookup(address) expects 4 or 16 bytes");
    }
    return Napi::Number::New(env, rec);
  }

  // lookupBatch4(ips: Uint32Array, out: Uint32Array): IPv4 as host integers.
  Napi::Value LookupBatch4(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (Closed(env)) return env.Undefined();
    if (info.Length() < 2 || !IsU32(info[0]) || !IsU32(info[1]))
      return ArgError(env, "lookupBatch4(ips, out) expects two Uint32Arrays");
    Napi::Uint32Array in = info[0].As<Napi::Uint32Array>();
    Napi::Uint32Array out = info[1].As<Napi::Uint32Array>();
    if (out.ElementLength() < in.ElementLength())
      return ArgError(env, "lookupBatch4(ips, out): out is shorter than ips");
    const uint32_t* src = in.Data();
    uint32_t* dst = out.Data();
    splitguard::LookupBatch4(view_, src, in.ElementLength(), dst);
    return env.Undefined();
  }

  // lookupBatch16(addrs: Uint8Array of n × 16 bytes, out: Uint32Array)
  Napi::Value LookupBatch16(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (Closed(env)) return env.Undefined();
    if (info.Length() < 2 || !info[0].IsTypedArray() ||
        info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array || !IsU32(info[1]))
      return ArgError(env, "lookupBatch16(addrs, out) expects a Uint8Array and a Uint32Array");
    Napi::Uint8Array in = info[0].As<Napi::Uint8Array>();
    Napi::Uint32Array out = info[1].As<Napi::Uint32Array>();
    if (in.ElementLength() % 16 != 0)
      return ArgError(env, "lookupBatch16(addrs, out): addrs length is not a multiple of 16");
    size_t n = in.ElementLength() / 16;
    if (out.ElementLength() < n)
      return ArgError(env, "lookupBatch16(addrs, out): out is shorter than the address count");
    const uint8_t* src = in.Data();
    uint32_t* dst = out.Data();
    splitguard::LookupBatch16(view_, src, n, dst);
    return env.Undefined();
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    if (file_) file_->DropReader();
    file_.reset();
    view_ = TrieView();
    return info.Env().Undefined();
  }

  static bool IsU32(const Napi::Value& v) {
    return v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_uint32_array;
  }

  std::shared_ptr<const MappedFile> file_;
  TrieView view_;
};

// crc32c(bytes: Uint8Array, seed = 0) -> number
Napi::Value Crc32cJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    return ArgError(env, "crc32c(bytes, seed) expects a Uint8Array");
  uint32_t seed = 0;
  if (info.Length() > 1 && info[1].IsNumber()) seed = info[1].As<Napi::Number>().Uint32Value();
  Napi::Uint8Array a = info[0].As<Napi::Uint8Array>();
  return Napi::Number::New(env, Crc32c(seed, a.Data(), a.ElementLength()));
}

// setIdleScheduling() -> boolean: puts every thread of the process under
// SCHED_IDLE, so any normal thread of the machine that becomes runnable
// preempts them at once: the database build's process then uses only CPU
// time that serving leaves idle. Every thread, not only the caller: V8's
// collector and compiler threads started with the process and do much of a
// large build's work. A thread started later inherits its creator's policy,
// and the creators are these threads; a pass repeats while it finds a thread
// it had not seen (one started during the pass). On Linux a tid names one
// thread (/proc/self/task). False where the system refuses or has no such
// policy for any thread.
#ifdef SCHED_IDLE
bool SetThreadIdle(pid_t tid) {
  sched_param param{};
  param.sched_priority = 0;
  return sched_setscheduler(tid, SCHED_IDLE, &param) == 0;
}
#endif

Napi::Value SetIdleScheduling(const Napi::CallbackInfo& info) {
#if defined(SCHED_IDLE) && defined(__linux__)
  bool all = true;
  std::vector<pid_t> done;
  for (int pass = 0; pass < 4; pass++) {
    DIR* dir = opendir("/proc/self/task");
    if (dir == nullptr) return Napi::Boolean::New(info.Env(), SetThreadIdle(0));
    bool found_new = false;
    while (dirent* entry = readdir(dir)) {
      char* end = nullptr;
      long tid = strtol(entry->d_name, &end, 10);
      if (entry->d_name[0] == '.' || *end != '\0' || tid <= 0) continue;
      if (std::find(done.begin(), done.end(), static_cast<pid_t>(tid)) != done.end()) continue;
      found_new = true;
      done.push_back(static_cast<pid_t>(tid));
      // A thread that ended since the listing (ESRCH) needs nothing.
      if (!SetThreadIdle(static_cast<pid_t>(tid)) && errno != ESRCH) all = false;
    }
    closedir(dir);
    if (!found_new) break;
  }
  return Napi::Boolean::New(info.Env(), all);
#elif defined(SCHED_IDLE)
  return Napi::Boolean::New(info.Env(), SetThreadIdle(0));
#else
  return Napi::Boolean::New(info.Env(), false);
#endif
}

// endWithParent(parentPid: number) -> boolean: has the kernel kill this
// process (SIGKILL) when its parent ends, however it ends: a database build
// whose server died must not go on using CPU, memory and disk for a result
// nobody will read. On Linux the "parent" is the thread that forked this
// process, which for the build is the server's main thread, alive as long as
// the server. False when the parent had already gone before the call (this
// process then has another parent, and no signal would come): the caller
// ends at once. Elsewhere only that check is made.
Napi::Value EndWithParent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) return ArgError(env, "endWithParent(parentPid) expects a process id");
  pid_t parent = static_cast<pid_t>(info[0].As<Napi::Number>().Int32Value());
#if defined(__linux__)
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  return Napi::Boolean::New(env, getppid() == parent);
}

// trimMemory() -> boolean: returns the C heap's free memory to the system
// (glibc malloc_trim: every arena, and whole free pages inside them). A
// database build allocates a few hundred MB in its own thread; glibc keeps
// much of it in that thread's arena after the thread ends (freed large
// blocks raise the mmap threshold, so later ones come from the arena).
// True when memory was released.
Napi::Value TrimMemory(const Napi::CallbackInfo& info) {
#if defined(__GLIBC__)
  return Napi::Boolean::New(info.Env(), malloc_trim(0) == 1);
#else
  return Napi::Boolean::New(info.Env(), false);
#endif
}

// sealedCopy(path: string) -> number: the descriptor of a sealed memory copy
// of the file (MappedFile::SealedCopy); the caller closes it.
Napi::Value SealedCopyJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) return ArgError(env, "sealedCopy(path) expects a string");
  std::string path = info[0].As<Napi::String>().Utf8Value();
  int fd = -1;
  int err = 0;
  Status s = MappedFile::SealedCopy(path.c_str(), &fd, &err);
  if (s != Status::kOk) {
    StatusError(env, s, path, err).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Number::New(env, fd);
}

// lockExclusive(fd: number) -> number: flock(fd, LOCK_EX | LOCK_NB), 0 when
// taken, else the errno (EWOULDBLOCK: another open file description of the
// file holds it, in this process or another). The lock belongs to the open
// file description: it ends when the descriptor is closed or the process
// ends, however it ends, so a crashed holder leaves nothing to clear.
Napi::Value LockExclusive(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) return ArgError(env, "lockExclusive(fd) expects a file descriptor");
  int fd = info[0].As<Napi::Number>().Int32Value();
  int r;
  do {
    r = flock(fd, LOCK_EX | LOCK_NB);
  } while (r != 0 && errno == EINTR);
  return Napi::Number::New(env, r == 0 ? 0 : errno);
}

Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  exports.Set("IpTrie", IpTrieWrap::Init(env));
  exports.Set("crc32c", Napi::Function::New(env, Crc32cJs, "crc32c"));
  exports.Set("setIdleScheduling", Napi::Function::New(env, SetIdleScheduling, "setIdleScheduling"));
  exports.Set("endWithParent", Napi::Function::New(env, EndWithParent, "endWithParent"));
  exports.Set("trimMemory", Napi::Function::New(env, TrimMemory, "trimMemory"));
  exports.Set("sealedCopy", Napi::Function::New(env, SealedCopyJs, "sealedCopy"));
  exports.Set("lockExclusive", Napi::Function::New(env, LockExclusive, "lockExclusive"));
  Napi::Object statuses = Napi::Object::New(env);
  for (int s = 0; s < static_cast<int>(Status::kStatusCount); s++) {
    statuses.Set(StatusName(static_cast<Status>(s)),
                 Napi::String::New(env, StatusMessage(static_cast<Status>(s))));
  }
  exports.Set("statuses", statuses);
  exports.Set("formatVersion", Napi::Number::New(env, kFormatVersion));
  InitConnectionGuard(env, exports);
  InitStoreCheck(env, exports);
  return exports;
}

}  // namespace
}  // namespace splitguard

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  return splitguard::InitModule(env, exports);
}

NODE_API_MODULE(splitguard_ipdb, Init)
