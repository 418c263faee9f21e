#include "net/shard_directory.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

namespace simsync::net {

namespace {

/// Monitors each remote handle it is sent; a down message clears that handle
/// from the table.
template <class Table>
caf::behavior watcher(caf::event_based_actor* self, std::shared_ptr<Table> table) {
  self->set_down_handler(
      [table](const caf::down_msg& down) { table->forget(down.source); });
  return {
      [self](const caf::strong_actor_ptr& handle) { self->monitor(handle); },
  };
}

} // namespace

shard_directory::shard_directory(caf::actor_system& sys, int shards)
    : table_(std::make_shared<table>()), home_(sys.node()) {
  table_->handles.resize(static_cast<std::size_t>(shards));
  watcher_ = sys.spawn(watcher<table>, table_);
}

shard_directory::~shard_directory() {
  caf::anon_send_exit(watcher_, caf::exit_reason::user_shutdown);
}

void shard_directory::table::forget(const caf::actor_addr& gone) {
  std::lock_guard<std::mutex> guard{mtx};
  for (auto& h : handles)
    if (h && h.address() == gone)
      h = account_shard_actor{};
}

account_shard_actor shard_directory::find(int index) const {
  std::lock_guard<std::mutex> guard{table_->mtx};
  if (index < 0 || static_cast<std::size_t>(index) >= table_->handles.size())
    return {};
  return table_->handles[static_cast<std::size_t>(index)];
}

void shard_directory::update(const node_shards& known) {
  std::vector<caf::strong_actor_ptr> watch;
  {
    std::lock_guard<std::mutex> guard{table_->mtx};
    for (std::size_t i = 0; i < known.indices.size() && i < known.handles.size(); ++i) {
      auto index = static_cast<std::size_t>(known.indices[i]);
      if (index >= table_->handles.size() || table_->handles[index] == known.handles[i])
        continue;
      table_->handles[index] = known.handles[i];
      if (known.handles[i].node() != home_)
        watch.push_back(caf::actor_cast<caf::strong_actor_ptr>(known.handles[i]));
    }
  }
  // Sent after the lock: a handle already down is forgotten by the watcher
  // at once (a monitor on a dead actor is told so immediately).
  for (auto& h : watch)
    caf::anon_send(watcher_, std::move(h));
}

} // namespace simsync::net
