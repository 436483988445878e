/* glslc.c: GLSL -> SPIR-V through a command-line compiler, when libshaderc cannot be used.
 *
 * Ownership and ordering. Debian 12's libshaderc1 (2023.2-1) does not load: it leaves
 * glslang and SPIRV-Tools symbols undefined without naming a library that defines them
 * ("undefined symbol: _ZTVN8spvtools5utils5TimerE"). Where that happens, program.c comes
 * here: the source is written to a private temporary directory, glslangValidator (package
 * glslang-tools) or glslc is run on it with the same target and macros, and the SPIR-V
 * and the log are read back; the directory is removed before returning. POSIX only; on
 * Windows the Vulkan SDK's libshaderc is the way. Callers serialise compiles.
 */
#define _DEFAULT_SOURCE
#define _DARWIN_C_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vkdrv.h"

#ifdef _WIN32
int vk_glsl_external(const char *src, size_t len, const char *sg, int denorm, unsigned char **out, size_t *n, char **log,
                     const char **tool) {
  (void)src; (void)len; (void)sg; (void)denorm; (void)out; (void)n;
  *log = NULL;
  *tool = "none";
  return PT_EUNAVAILABLE;
}
#else
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = sz >= 0 ? malloc((size_t)sz + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) { free(buf); buf = NULL; }
  fclose(f);
  if (buf) { buf[sz] = 0; *n = (size_t)sz; }
  return buf;
}

/* Runs argv with stdout and stderr into logpath; the exit status, or -1 if it could not start. */
static int run(char *const argv[], const char *logpath) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (e != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int vk_glsl_external(const char *src, size_t len, const char *sg, int denorm, unsigned char **out, size_t *n, char **log,
                     const char **tool) {
  const char *tmp = getenv("TMPDIR");
  char dir[512], in[600], spv[600], lg[600], dsg[64];
  *log = NULL;
  *tool = "glslangValidator";
  snprintf(dir, sizeof dir, "%s/polytensor-glsl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return pt_error(PT_EDRIVER, "vulkan: cannot make a temporary directory for the GLSL compiler: %s", strerror(errno));
  snprintf(in, sizeof in, "%s/k.comp", dir);
  snprintf(spv, sizeof spv, "%s/k.spv", dir);
  snprintf(lg, sizeof lg, "%s/k.log", dir);
  snprintf(dsg, sizeof dsg, "-DPT_VK_SUBGROUP=%s", sg);
  int st = PT_OK;
  FILE *f = fopen(in, "wb");
  if (!f || fwrite(src, 1, len, f) != len) st = pt_error(PT_EDRIVER, "vulkan: cannot write %s: %s", in, strerror(errno));
  if (f) fclose(f);
  if (st == PT_OK) {
    char *gv[] = {"glslangValidator", "-V", "--target-env", "vulkan1.2", "-S", "comp", dsg,
                  denorm ? "-DPT_VK_DENORM_PRESERVE_F32=1" : "-DPT_VK_NO_DENORM=1", "-o", spv, in, NULL};
    int rc = run(gv, lg);
    if (rc < 0 || rc == 127) {
      char *gc[] = {"glslc", "--target-env=vulkan1.2", "-fshader-stage=compute", "-O", dsg,
                    denorm ? "-DPT_VK_DENORM_PRESERVE_F32=1" : "-DPT_VK_NO_DENORM=1", "-o", spv, in, NULL};
      *tool = "glslc";
      rc = run(gc, lg);
    }
    size_t ln = 0;
    if (rc < 0 || rc == 127) st = PT_EUNAVAILABLE;
    else if (rc != 0) { *log = slurp(lg, &ln); st = PT_EINVAL; }
    else if (!(*out = (unsigned char *)slurp(spv, n))) st = pt_error(PT_EDRIVER, "vulkan: %s wrote no SPIR-V", *tool);
  }
  unlink(in);
  unlink(spv);
  unlink(lg);
  rmdir(dir);
  return st;
}
#endif
