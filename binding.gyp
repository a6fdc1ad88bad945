{
  "targets": [
    {
      "target_name": "splitguard_ipdb",
      "sources": ["native/trie_reader.cc", "native/crc32c.cc", "native/trie_wrap.cc",
                  "native/connection_guard.cc", "native/connection_guard_wrap.cc",
                  "native/store_check.cc", "native/store_check_wrap.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      "cflags_cc": ["-std=c++17", "-O3", "-fvisibility=hidden", "-Wall", "-Wextra"],
      "cflags": ["-O3"]
    }
  ]
}
