#pragma once

#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace simsync::testing {

/// A file's whole text (a key or certificate of the test PKI); empty if none.
std::string file_text(const std::string& path);

/// The TLS certificates and signing keys of test deployments, made by
/// tools/pki (the same script tools/cluster uses) in a temporary folder that
/// every deployment of the test process shares: one federation CA, and per
/// carrier its federation certificate, its Ed25519 signing key and its own
/// cluster CA with a certificate per node. Removed when the process ends.
class test_pki {
public:
  /// The process's PKI, with files for `carrier` and its `nodes` made if
  /// they are missing (tools/pki init never replaces a file).
  static test_pki& shared();
  void ensure(const std::string& carrier, const std::vector<std::string>& nodes);

  std::string federation_ca() const { return dir_ + "/federation-ca.crt"; }
  std::string federation_pem(const std::string& carrier) const {
    return dir_ + "/" + carrier + "/federation.pem";
  }
  std::string signing_key(const std::string& carrier) const {
    return dir_ + "/" + carrier + "/signing.key";
  }
  std::string signing_pub(const std::string& carrier) const {
    return dir_ + "/" + carrier + "/signing.pub";
  }
  std::string cluster_ca(const std::string& carrier) const {
    return dir_ + "/" + carrier + "/cluster-ca.crt";
  }
  std::string cluster_pem(const std::string& carrier, const std::string& node) const {
    return dir_ + "/" + carrier + "/" + node + ".cluster.pem";
  }
  const std::string& dir() const { return dir_; }

  ~test_pki();

private:
  test_pki();
  std::string dir_;
  std::mutex mutex_;
  std::set<std::string> made_; ///< "carrier:node"
};

} // namespace simsync::testing
