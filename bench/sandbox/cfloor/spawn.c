/* The floor of any program that starts a shell command: a static C
   program that posix_spawns `bash -c COMMAND` in its own session and
   waits (no signal handling; built by bench/sandbox/run.sh when a C
   compiler is there). Usage: spawn COMMAND */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
extern char **environ;
int main(int argc, char **argv) {
	char cmd[4096] = "";
	for (int i = 1; i < argc; i++) {
		if (i > 1) strncat(cmd, " ", sizeof cmd - strlen(cmd) - 1);
		strncat(cmd, argv[i], sizeof cmd - strlen(cmd) - 1);
	}
	char *a[] = {"bash", "-c", cmd, 0};
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
	pid_t p;
	if (posix_spawnp(&p, "bash", 0, &at, a, environ)) return 126;
	int s;
	if (waitpid(p, &s, 0) < 0) return 126;
	return WIFEXITED(s) ? WEXITSTATUS(s) : 128 + WTERMSIG(s);
}
