// render_png: a viewer page drawn into a PNG file by headless Chromium (software WebGL).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "diffcol/view/view.hpp"

namespace diffcol::view {
namespace {

namespace fs = std::filesystem;

bool executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// file:// URL of an absolute path (bytes outside the unreserved set and '/' percent-encoded).
std::string file_url(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string url = "file://";
  for (const unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      url += static_cast<char>(c);
    } else {
      url += '%';
      url += hex[c >> 4];
      url += hex[c & 15];
    }
  }
  return url;
}

// The end of the browser's output, without its D-Bus complaints (there is no session bus in a
// headless run; they say nothing about the page).
std::string tail(const std::string& text, size_t n) {
  std::string kept;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find("dbus") == std::string::npos && line.find("D-Bus") == std::string::npos) kept += line + "\n";
  return kept.size() <= n ? kept : "..." + kept.substr(kept.size() - n);
}

}  // namespace

std::string find_chromium() {
  if (const char* env = std::getenv("DIFFCOL_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    std::stringstream ss(dirs);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (dir.empty()) continue;
      const std::string candidate = dir + "/" + name;
      if (executable(candidate)) return candidate;
    }
  }
  return "";
}

void render_png(const std::string& html_path, const std::string& png_path, const PngOptions& options) {
  if (options.width < 16 || options.width > 8192 || options.height < 16 || options.height > 8192)
    throw std::invalid_argument("render_png: width and height must be in [16, 8192], got " +
                                std::to_string(options.width) + "x" + std::to_string(options.height));
  if (options.virtual_time_ms <= 0 || !(options.timeout_s > 0.0) || !std::isfinite(options.timeout_s))
    throw std::invalid_argument("render_png: virtual_time_ms and timeout_s must be > 0");
  std::error_code ec;
  if (!fs::is_regular_file(html_path, ec)) throw std::runtime_error("view: no page '" + html_path + "' to draw");
  const std::string html_abs = fs::absolute(html_path).lexically_normal().string();
  const std::string png_abs = fs::absolute(png_path).lexically_normal().string();
  if (const fs::path dir = fs::path(png_abs).parent_path(); !fs::is_directory(dir, ec))
    throw std::runtime_error("view: cannot write the PNG '" + png_path + "': no directory '" + dir.string() + "'");
  const std::string exe = options.chromium.empty() ? find_chromium() : options.chromium;
  if (exe.empty())
    throw std::runtime_error(
        "view: no Chromium found to draw the PNG (looked for $DIFFCOL_CHROMIUM, then chromium, chromium-browser, "
        "google-chrome, google-chrome-stable on PATH); install it (Debian: apt-get install chromium, or run "
        "bash viewer/setup.sh) or set DIFFCOL_CHROMIUM to the browser");
  if (!executable(exe)) throw std::runtime_error("view: the browser '" + exe + "' is not an executable file");
  fs::remove(png_abs, ec);

  std::string profile = (fs::temp_directory_path() / "diffcol-png-XXXXXX").string();
  if (!::mkdtemp(profile.data())) throw std::runtime_error("view: cannot create a temporary browser profile");
  const std::string log_path = profile + "/chromium.log";

  std::vector<std::string> args = {exe, "--headless"};
  if (::geteuid() == 0) args.push_back("--no-sandbox");  // Chromium refuses to run as root with its sandbox
  for (const char* a : {"--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--no-first-run",
                        "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
                        "--disable-dev-shm-usage", "--force-device-scale-factor=1",
                        // the page's console messages in the log: its load errors and "drawn"
                        "--enable-logging=stderr", "--log-level=0"})
    args.emplace_back(a);
  args.push_back("--user-data-dir=" + profile);
  args.push_back("--window-size=" + std::to_string(options.width) + "," + std::to_string(options.height));
  args.push_back("--virtual-time-budget=" + std::to_string(options.virtual_time_ms));
  args.push_back("--screenshot=" + png_abs);
  args.push_back(file_url(html_abs));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) {
    fs::remove_all(profile, ec);
    throw std::runtime_error("view: cannot start the browser (fork failed)");
  }
  if (pid == 0) {  // child: own process group (killed as a whole on timeout), output to the log
    ::setpgid(0, 0);
    const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int null_in = ::open("/dev/null", O_RDONLY);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    if (null_in >= 0) ::dup2(null_in, 0);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  int status = 0;
  bool timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.timeout_s);
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      timed_out = true;
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::string log;
  {
    std::ifstream f(log_path, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    log = ss.str();
  }
  fs::remove_all(profile, ec);
  const std::string cmd = exe + " --headless ... --screenshot=" + png_abs;
  if (timed_out)
    throw std::runtime_error("view: the browser did not finish within " + std::to_string(options.timeout_s) +
                             " s (" + cmd + "); its output:\n" + tail(log, 2000));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("view: the browser failed (" +
                             (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                                : std::string("killed by a signal")) +
                             ", " + cmd + "); its output:\n" + tail(log, 2000));
  if (!fs::is_regular_file(png_abs, ec) || fs::file_size(png_abs, ec) == 0)
    throw std::runtime_error("view: the browser wrote no PNG to '" + png_abs + "'; its output:\n" + tail(log, 2000));
  // The page reports on the console (template.html, viewer.js): an error, or that it has drawn.
  if (const size_t at = log.find("diffcol view error: "); at != std::string::npos) {
    const size_t end = log.find('\n', at);
    throw std::runtime_error("view: the page failed in the browser (the PNG shows the error): " +
                             log.substr(at + 20, std::min<size_t>(end == std::string::npos ? log.size() : end, at + 600) -
                                                     (at + 20)));
  }
  if (log.find("diffcol view: drawn") == std::string::npos)
    throw std::runtime_error("view: the page had not drawn itself when the browser took the picture (" +
                             std::to_string(options.virtual_time_ms) + " ms of page time); its output:\n" +
                             tail(log, 2000));
}

}  // namespace diffcol::view
