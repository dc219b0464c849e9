// load_plugin: checks a plug-in's ABI record in the file, then loads it with the dynamic loader
// and reports what it registered (include/schedlab/plugin.hpp).
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "schedlab/error.hpp"
#include "schedlab/placement_strategy.hpp"
#include "schedlab/plugin.hpp"
#include "schedlab/policy.hpp"
#include "schedlab/printable.hpp"
#include "schedlab/registry.hpp"

// This process's own ELF header (the linker defines the symbol): the class, byte order and
// machine a plug-in must have.
// NOLINTNEXTLINE(bugprone-reserved-identifier): the linker's own name for it
extern "C" const ElfW(Ehdr) __ehdr_start;

namespace schedlab {

namespace {

std::vector<LoadedPlugin>& plugins() {
  static std::vector<LoadedPlugin> loaded;  // copied out: push_back may move the records
  return loaded;
}

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw ConfigError(fmt::format("--plugin {}: {}", path, why));
}

// The file's bytes; throws ConfigError when it cannot be read.
std::string read_bytes(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    refuse(path, error ? error.message() : "not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, std::strerror(errno));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const char* machine_name(unsigned machine) {
  switch (machine) {
    case EM_386: return "i386";
    case EM_X86_64: return "x86-64";
    case EM_ARM: return "ARM";
    case EM_AARCH64: return "AArch64";
    case EM_PPC64: return "PowerPC64";
    case EM_RISCV: return "RISC-V";
    case EM_S390: return "s390";
    default: return "another machine";
  }
}

// Whether bytes [offset, offset + count * size) lie inside a file of `file_size` bytes.
bool inside(std::uint64_t offset, std::uint64_t count, std::uint64_t size,
            std::uint64_t file_size) {
  return offset <= file_size && (size == 0 || count <= (file_size - offset) / size);
}

// What makes `bytes` other than an ELF shared object of this process's class, byte order and
// machine whose headers, program headers, section headers and the file bytes of every segment
// and section lie inside the file; "" when nothing does. The dynamic loader maps a library's
// segments without such checks: a truncated one faults inside dlopen (SIGBUS).
std::string elf_problem(const std::string& bytes) {
  const std::uint64_t size = bytes.size();
  const auto* ident = reinterpret_cast<const unsigned char*>(bytes.data());
  if (size < EI_NIDENT || std::memcmp(ident, ELFMAG, SELFMAG) != 0) return "not an ELF file";
  const ElfW(Ehdr)& self = __ehdr_start;
  if (ident[EI_CLASS] != self.e_ident[EI_CLASS])
    return fmt::format("an ELF file of class {} (this schedlab: {}, {}-bit)", ident[EI_CLASS],
                       self.e_ident[EI_CLASS], sizeof(void*) * 8);
  if (ident[EI_DATA] != self.e_ident[EI_DATA])
    return fmt::format("an ELF file of the other byte order (EI_DATA {}, this schedlab: {})",
                       ident[EI_DATA], self.e_ident[EI_DATA]);
  if (size < sizeof(ElfW(Ehdr)))
    return fmt::format("truncated: {} bytes, shorter than an ELF header", size);
  ElfW(Ehdr) header;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.e_type != ET_DYN)
    return fmt::format("not a shared library (ELF type {})", header.e_type);
  if (header.e_machine != self.e_machine)
    return fmt::format("built for {} (ELF machine {}), this schedlab runs on {} ({})",
                       machine_name(header.e_machine), header.e_machine,
                       machine_name(self.e_machine), self.e_machine);
  // A table or segment of `count` entries of `each` bytes from `from` that ends past the file.
  const auto truncated = [&](const std::string& what, std::uint64_t from, std::uint64_t count,
                             std::uint64_t each) {
    const std::uint64_t length = each != 0 && count > UINT64_MAX / each ? UINT64_MAX : count * each;
    const std::uint64_t end = length > UINT64_MAX - from ? UINT64_MAX : from + length;
    return fmt::format(
        "truncated or corrupt: {} ends at byte {}, past the end of the file "
        "({} bytes)",
        what, end, size);
  };

  // Section headers: an extended count (e_shnum 0) is in section 0's sh_size.
  std::uint64_t section_count = header.e_shnum;
  std::vector<ElfW(Shdr)> sections;
  if (header.e_shoff != 0) {
    if (header.e_shentsize != sizeof(ElfW(Shdr)))
      return fmt::format("corrupt: section header size {} (expected {})", header.e_shentsize,
                         sizeof(ElfW(Shdr)));
    if (!inside(header.e_shoff, 1, sizeof(ElfW(Shdr)), size))
      return truncated("the section header table", header.e_shoff, 1, sizeof(ElfW(Shdr)));
    if (section_count == 0) {
      ElfW(Shdr) first;
      std::memcpy(&first, bytes.data() + header.e_shoff, sizeof first);
      section_count = first.sh_size;
    }
    if (!inside(header.e_shoff, section_count, sizeof(ElfW(Shdr)), size))
      return truncated("the section header table", header.e_shoff, section_count,
                       sizeof(ElfW(Shdr)));
    sections.resize(section_count);
    std::memcpy(sections.data(), bytes.data() + header.e_shoff, section_count * sizeof(ElfW(Shdr)));
  } else if (header.e_shnum != 0) {
    return fmt::format("corrupt: {} section headers at file offset 0", header.e_shnum);
  }

  // Program headers: an extended count (e_phnum PN_XNUM) is in section 0's sh_info.
  std::uint64_t segment_count = header.e_phnum;
  if (segment_count == PN_XNUM && !sections.empty()) segment_count = sections[0].sh_info;
  if (segment_count == 0 || header.e_phoff == 0) return "corrupt: no program headers";
  if (header.e_phentsize != sizeof(ElfW(Phdr)))
    return fmt::format("corrupt: program header size {} (expected {})", header.e_phentsize,
                       sizeof(ElfW(Phdr)));
  if (!inside(header.e_phoff, segment_count, sizeof(ElfW(Phdr)), size))
    return truncated("the program header table", header.e_phoff, segment_count, sizeof(ElfW(Phdr)));
  for (std::uint64_t i = 0; i < segment_count; ++i) {
    ElfW(Phdr) segment;
    std::memcpy(&segment, bytes.data() + header.e_phoff + i * sizeof segment, sizeof segment);
    if (segment.p_type == PT_NULL || segment.p_filesz == 0) continue;
    if (!inside(segment.p_offset, 1, segment.p_filesz, size)) {
      const char* kind = segment.p_type == PT_LOAD      ? "PT_LOAD"
                         : segment.p_type == PT_DYNAMIC ? "PT_DYNAMIC"
                                                        : "program";
      return truncated(fmt::format("the {} segment {}", kind, i), segment.p_offset, 1,
                       segment.p_filesz);
    }
  }
  for (std::uint64_t i = 0; i < sections.size(); ++i) {
    const ElfW(Shdr)& section = sections[i];
    if (section.sh_type == SHT_NULL || section.sh_type == SHT_NOBITS || section.sh_size == 0)
      continue;
    if (!inside(section.sh_offset, 1, section.sh_size, size))
      return truncated(fmt::format("section {}", i), section.sh_offset, 1, section.sh_size);
  }
  return "";
}

// The ABI record in `bytes` ("schedlab-plugin-abi:...;", up to its NUL), or "" when none.
std::string abi_record(const std::string& bytes) {
  const std::string_view tag = SCHEDLAB_PLUGIN_ABI_TAG "version=";
  const std::size_t at = bytes.find(tag);
  if (at == std::string::npos) return "";
  const std::size_t end = bytes.find('\0', at);
  return bytes.substr(
      at, std::min<std::size_t>(end == std::string::npos ? bytes.size() : end, at + 256) - at);
}

// The fields of an ABI record in the form this build writes
// ("TAGversion=V;cxx11-abi=A;registration=R;", V, A and R free of ';'; a record without the
// registration field, written before it existed, is registration layout 1), or nothing when the
// record has another form.
struct AbiFields {
  std::string version;
  std::string cxx11_abi;
  std::string registration = "1";
};
std::optional<AbiFields> abi_fields(const std::string& record) {
  const std::string_view version_key = SCHEDLAB_PLUGIN_ABI_TAG "version=";
  const std::string_view abi_key = "cxx11-abi=";
  std::string_view rest = record;
  if (!rest.starts_with(version_key)) return std::nullopt;
  rest.remove_prefix(version_key.size());
  const std::size_t version_end = rest.find(';');
  if (version_end == std::string_view::npos) return std::nullopt;
  AbiFields fields{std::string(rest.substr(0, version_end)), ""};
  rest.remove_prefix(version_end + 1);
  if (!rest.starts_with(abi_key)) return std::nullopt;
  rest.remove_prefix(abi_key.size());
  const std::size_t abi_end = rest.find(';');
  if (abi_end == std::string_view::npos) return std::nullopt;
  fields.cxx11_abi = std::string(rest.substr(0, abi_end));
  rest.remove_prefix(abi_end + 1);
  if (rest.empty()) return fields;
  const std::string_view registration_key = "registration=";
  if (!rest.starts_with(registration_key)) return std::nullopt;
  rest.remove_prefix(registration_key.size());
  const std::size_t registration_end = rest.find(';');
  if (registration_end == std::string_view::npos || registration_end + 1 != rest.size())
    return std::nullopt;
  fields.registration = std::string(rest.substr(0, registration_end));
  return fields;
}

std::vector<std::string> added_names(const std::vector<std::string>& before,
                                     const std::vector<std::string>& after) {
  std::vector<std::string> added;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(added));
  return added;
}

}  // namespace

const std::vector<LoadedPlugin>& loaded_plugins() {
  return plugins();
}

LoadedPlugin load_plugin(const std::string& path) {
  static std::mutex loading;
  const std::lock_guard lock(loading);
  const std::string bytes = read_bytes(path);
  const std::string record = abi_record(bytes);
  if (record.empty())
    refuse(path, "not a schedlab plug-in (it holds no " SCHEDLAB_PLUGIN_ABI_TAG
                 " record; build it with schedlab_add_policy, docs/writing-policies.md)");
  if (const std::string problem = elf_problem(bytes); !problem.empty())
    refuse(path, "not a loadable shared library: " + problem);
  const std::string expected = SCHEDLAB_PLUGIN_ABI_RECORD;
  if (record != expected) {
    const std::optional<AbiFields> fields = abi_fields(record);
    if (!fields)
      refuse(path, fmt::format("malformed ABI record '{}' (this schedlab writes '{}'): rebuild "
                               "the plug-in with schedlab_add_policy",
                               printable_text(record), expected));
    if (fields->version != SCHEDLAB_VERSION_STRING)
      refuse(path, fmt::format("built against schedlab {}, this is schedlab {}: rebuild the "
                               "plug-in against this version",
                               printable_text(fields->version), SCHEDLAB_VERSION_STRING));
    if (fields->registration != SCHEDLAB_PLUGIN_REGISTRATION_LAYOUT)
      refuse(path, fmt::format("built with registration layout {}, this schedlab uses layout {} "
                               "(include/schedlab/plugin.hpp): rebuild the plug-in against this "
                               "schedlab",
                               printable_text(fields->registration),
                               SCHEDLAB_PLUGIN_REGISTRATION_LAYOUT));
    refuse(path, fmt::format("built with the C++ library ABI cxx11-abi={}, this schedlab uses "
                             "cxx11-abi={}: rebuild the plug-in with the same compiler settings",
                             printable_text(fields->cxx11_abi), SCHEDLAB_PLUGIN_CXX11_ABI));
  }
  std::error_code error;
  const std::string canonical = std::filesystem::canonical(path, error).string();
  for (const LoadedPlugin& loaded : plugins())
    if (loaded.canonical_path == canonical) return loaded;

  auto& policies = Registry<PolicyInfo>::instance();
  auto& placements = Registry<PlacementInfo>::instance();
  const std::vector<std::string> policies_before = policies.name_list();
  const std::vector<std::string> placements_before = placements.name_list();
  policies.collect_taken_names(true);
  placements.collect_taken_names(true);
  // dlopen needs a slash to take a path rather than search the library path.
  const std::string load_path = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(load_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  policies.collect_taken_names(false);
  placements.collect_taken_names(false);
  const std::vector<std::string> taken_policies = policies.take_taken_names();
  const std::vector<std::string> taken_placements = placements.take_taken_names();
  if (handle == nullptr) {
    const char* why = dlerror();
    refuse(path, fmt::format("cannot load: {}", why != nullptr ? why : "unknown error"));
  }
  if (!taken_policies.empty())
    refuse(path, fmt::format("registers policy '{}', a name that is taken", taken_policies[0]));
  if (!taken_placements.empty())
    refuse(path,
           fmt::format("registers placement '{}', a name that is taken", taken_placements[0]));
  LoadedPlugin plugin;
  plugin.path = path;
  plugin.canonical_path = canonical;
  plugin.policies = added_names(policies_before, policies.name_list());
  plugin.placements = added_names(placements_before, placements.name_list());
  plugins().push_back(plugin);
  return plugin;
}

}  // namespace schedlab
