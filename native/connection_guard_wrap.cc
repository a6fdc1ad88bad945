// The N-API binding of connection_guard: a thin shell that converts
// arguments and results. Failures throw an Error whose `code` is the status
// name (connguard_...) and, when a system call failed, whose `errno` is set.
//
// Lifetime: a ConnectionGuardWrap owns its ConnectionGuard (and so the
// descriptors it keeps open) until close() or collection.
#include "connection_guard_wrap.h"

#include <arpa/inet.h>
#include <sys/resource.h>

#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "connection_guard.h"

namespace splitguard {
namespace {

Napi::Error GuardError(Napi::Env env, GuardStatus s, int sys_errno) {
  Napi::Error e = Napi::Error::New(env, GuardStatusMessage(s));
  e.Set("code", Napi::String::New(env, GuardStatusName(s)));
  if (sys_errno != 0) e.Set("errno", Napi::Number::New(env, sys_errno));
  return e;
}

Napi::Value ArgError(Napi::Env env, const char* message) {
  Napi::TypeError e = Napi::TypeError::New(env, message);
  e.Set("code", Napi::String::New(env, "connguard_invalid_argument"));
  e.ThrowAsJavaScriptException();
  return env.Undefined();
}

// The remote address as text: IPv4-mapped addresses as plain dotted IPv4
// (what the rest of splitguard prints and parses), others as IPv6.
Napi::String AddressText(Napi::Env env, const uint8_t a[16]) {
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  char text[INET6_ADDRSTRLEN] = "";
  if (std::memcmp(a, kMapped, 12) == 0)
    inet_ntop(AF_INET, a + 12, text, sizeof(text));
  else
    inet_ntop(AF_INET6, a, text, sizeof(text));
  return Napi::String::New(env, text);
}

class ConnectionGuardWrap : public Napi::ObjectWrap<ConnectionGuardWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "ConnectionGuard",
                       {
                           InstanceMethod<&ConnectionGuardWrap::List>("list"),
                           InstanceMethod<&ConnectionGuardWrap::Shutdown>("shutdown"),
                           InstanceMethod<&ConnectionGuardWrap::Close>("close"),
                       });
  }

  // new ConnectionGuard()
  explicit ConnectionGuardWrap(const Napi::CallbackInfo& info)
      : Napi::ObjectWrap<ConnectionGuardWrap>(info) {
    int sys_errno = 0;
    GuardStatus s = ConnectionGuard::Open(&guard_, &sys_errno);
    if (s != GuardStatus::kOk) GuardError(info.Env(), s, sys_errno).ThrowAsJavaScriptException();
  }

 private:
  bool Closed(Napi::Env env) {
    if (guard_) return false;
    Napi::Error e = Napi::Error::New(env, "the connection guard has been closed");
    e.Set("code", Napi::String::New(env, "connguard_closed"));
    e.ThrowAsJavaScriptException();
    return true;
  }

  // list(ports: number[]) -> {inode, address, port, localPort, state,
  //   sendQueue, receiveQueue, bytesAcked, lastReceiveMs}[]
  // bytesAcked and lastReceiveMs are -1 when the kernel sent no tcp_info.
  Napi::Value List(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (Closed(env)) return env.Undefined();
    if (info.Length() < 1 || !info[0].IsArray()) return ArgError(env, "list(ports) expects an array of port numbers");
    Napi::Array ports_js = info[0].As<Napi::Array>();
    std::vector<uint16_t> ports;
    for (uint32_t i = 0; i < ports_js.Length(); i++) {
      Napi::Value v = ports_js.Get(i);
      if (!v.IsNumber()) return ArgError(env, "list(ports) expects an array of port numbers");
      double p = v.As<Napi::Number>().DoubleValue();
      if (!(p >= 1 && p <= 65535) || p != static_cast<double>(static_cast<uint16_t>(p)))
        return ArgError(env, "list(ports): a port is not an integer from 1 to 65535");
      ports.push_back(static_cast<uint16_t>(p));
    }
    std::vector<Connection> list;
    int sys_errno = 0;
    GuardStatus s = guard_->List(ports.data(), ports.size(), &list, &sys_errno);
    if (s != GuardStatus::kOk) {
      GuardError(env, s, sys_errno).ThrowAsJavaScriptException();
      return env.Undefined();
    }
    Napi::Array out = Napi::Array::New(env, list.size());
    for (size_t i = 0; i < list.size(); i++) {
      const Connection& c = list[i];
      Napi::Object o = Napi::Object::New(env);
      o.Set("inode", Napi::Number::New(env, static_cast<double>(c.inode)));
      o.Set("address", AddressText(env, c.address));
      o.Set("port", Napi::Number::New(env, c.remote_port));
      o.Set("localPort", Napi::Number::New(env, c.local_port));
      o.Set("state", Napi::Number::New(env, c.state));
      o.Set("sendQueue", Napi::Number::New(env, c.send_queue));
      o.Set("receiveQueue", Napi::Number::New(env, c.receive_queue));
      o.Set("bytesAcked", Napi::Number::New(env, c.has_tcp_info ? static_cast<double>(c.bytes_acked) : -1));
      o.Set("lastReceiveMs", Napi::Number::New(env, c.has_tcp_info ? static_cast<double>(c.last_data_received_ms) : -1));
      out.Set(static_cast<uint32_t>(i), o);
    }
    return out;
  }

  // shutdown(inodes: number[]) -> how many sockets were shut down
  Napi::Value Shutdown(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (Closed(env)) return env.Undefined();
    if (info.Length() < 1 || !info[0].IsArray()) return ArgError(env, "shutdown(inodes) expects an array of inode numbers");
    Napi::Array inodes_js = info[0].As<Napi::Array>();
    std::vector<uint64_t> inodes;
    for (uint32_t i = 0; i < inodes_js.Length(); i++) {
      Napi::Value v = inodes_js.Get(i);
      if (!v.IsNumber()) return ArgError(env, "shutdown(inodes) expects an array of inode numbers");
      double n = v.As<Napi::Number>().DoubleValue();
      if (!(n >= 1 && n <= 9007199254740991.0) || n != static_cast<double>(static_cast<uint64_t>(n)))
        return ArgError(env, "shutdown(inodes): an inode is not a positive integer");
      inodes.push_back(static_cast<uint64_t>(n));
    }
    size_t done = 0;
    int sys_errno = 0;
    GuardStatus s = guard_->Shutdown(inodes.data(), inodes.size(), &done, &sys_errno);
    if (s != GuardStatus::kOk) {
      GuardError(env, s, sys_errno).ThrowAsJavaScriptException();
      return env.Undefined();
    }
    return Napi::Number::New(env, static_cast<double>(done));
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    guard_.reset();
    return info.Env().Undefined();
  }

  std::unique_ptr<ConnectionGuard> guard_;
};

// raiseFileLimit() -> {soft, hard}: the soft RLIMIT_NOFILE raised to the
// hard one; an unlimited hard limit is reported as Infinity.
Napi::Value RaiseFileLimitJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint64_t soft = 0, hard = 0;
  int sys_errno = 0;
  GuardStatus s = RaiseFileLimit(&soft, &hard, &sys_errno);
  if (s != GuardStatus::kOk) {
    GuardError(env, s, sys_errno).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto limit = [](uint64_t v) {
    return v == static_cast<uint64_t>(RLIM_INFINITY) ? std::numeric_limits<double>::infinity()
                                                     : static_cast<double>(v);
  };
  Napi::Object o = Napi::Object::New(env);
  o.Set("soft", Napi::Number::New(env, limit(soft)));
  o.Set("hard", Napi::Number::New(env, limit(hard)));
  return o;
}

}  // namespace

void InitConnectionGuard(Napi::Env env, Napi::Object exports) {
  exports.Set("ConnectionGuard", ConnectionGuardWrap::Init(env));
  exports.Set("raiseFileLimit", Napi::Function::New(env, RaiseFileLimitJs, "raiseFileLimit"));
  Napi::Object statuses = Napi::Object::New(env);
  for (int s = 0; s < static_cast<int>(GuardStatus::kStatusCount); s++) {
    statuses.Set(GuardStatusName(static_cast<GuardStatus>(s)),
                 Napi::String::New(env, GuardStatusMessage(static_cast<GuardStatus>(s))));
  }
  exports.Set("connectionGuardStatuses", statuses);
}

}  // namespace splitguard
