// Per-contact history of the Mindlin tangential spring: which partner a grain touched last step, and the
// spring's displacement for that contact.
//
// Storage: `slots` fixed slots per grain, a flat array indexed by the grain's creation id (not by its
// place in cell order), so the reordering by cell every step leaves the history where it is: the contact
// pass reads grain id's slots [id * slots, (id + 1) * slots), in use from the first slot on, ended by the
// first slot whose partner is kNoPartner. Each slot is 16 bytes, one aligned load:
//
//   grain id 7, slots 4, touching grain 12, fixed grain 3 and the floor (face z-):
//   [ {xi, 12} | {xi, base + 3} | {xi, kWallPartner + 4} | {-, kNoPartner} ]
//
// A contact pass reads the last step's slots (`previous`) and writes this step's (`current`); the
// backends swap the two buffers after the pass. A contact found in `previous` continues its spring; a new
// contact starts from zero; a contact that opened is not written, so its history is dropped. When a grain
// has more contacts than slots, the extra ones are counted as overflow and act this step with a spring
// that starts from zero (no static friction for them) instead of corrupting another slot.
//
// Partner keys: a moving grain's creation id; fixed grain b: DemParameters::fixed_partner_base + b (the
// moving grain count); a wall plane: kWallPartner + face (Face order x-, x+, y-, y+, z-, z+).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"

namespace surge {

struct alignas(16) ContactSlot {
  Vec3f spring;           // tangential displacement xi of this grain's copy of the spring [m]
  std::uint32_t partner;  // partner key, or kNoPartner for an unused slot
};
static_assert(sizeof(ContactSlot) == 16, "one 16-byte load per slot");

inline constexpr std::uint32_t kNoPartner = 0xFFFFFFFFu;
inline constexpr std::uint32_t kWallPartner = 0xFFFFFFF0u;  // + face, 0..5
// Moving plus fixed grains must stay below kWallPartner (build_dem_setup checks).

struct ContactHistoryView {
  const ContactSlot* previous = nullptr;  // last step's slots, by creation id; null: no history kept
  ContactSlot* current = nullptr;         // this step's slots (out)
  std::uint32_t slots = 0;                // per grain
};

// One grain's history while its contacts are visited: finds a partner's spring from the last step and
// records this step's springs, compacted from the first slot.
class GrainContactHistory {
 public:
  SURGE_HD GrainContactHistory(const ContactHistoryView& view, std::uint32_t grain_id)
      : previous_(view.previous + std::size_t(grain_id) * view.slots),
        current_(view.current + std::size_t(grain_id) * view.slots),
        slots_(view.slots) {}

  // The spring of `partner` at the last step, or zero for a new contact.
  SURGE_HD Vec3f find(std::uint32_t partner) const {
    for (std::uint32_t s = 0; s < slots_; ++s) {
      const ContactSlot slot = previous_[s];
      if (slot.partner == partner) return slot.spring;
      if (slot.partner == kNoPartner) break;
    }
    return Vec3f{};
  }

  SURGE_HD void keep(std::uint32_t partner, Vec3f spring) {
    ++contacts_;
    if (used_ < slots_) {
      current_[used_++] = ContactSlot{spring, partner};
    } else {
      ++overflow_;
    }
  }

  // Ends the list; call once after the last contact.
  SURGE_HD void finish() {
    if (used_ < slots_) current_[used_] = ContactSlot{Vec3f{}, kNoPartner};
  }

  SURGE_HD std::uint32_t contacts() const { return contacts_; }  // this step's, slots or not
  SURGE_HD std::uint32_t overflow() const { return overflow_; }  // contacts that found no free slot

 private:
  const ContactSlot* previous_;
  ContactSlot* current_;
  std::uint32_t slots_;
  std::uint32_t used_ = 0, contacts_ = 0, overflow_ = 0;
};

}  // namespace surge
