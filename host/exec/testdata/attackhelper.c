// attackhelper tries, from inside a sandboxed run, to reach the sandbox
// helper: pid 1 of the command's PID namespace. Each attack prints one
// line, "refused NAME: why" when the kernel refused it or "BREACH NAME:
// what" when it got through; TestHelperUnreachable (helper_attack_linux_test.go)
// compiles it with cc and reads the lines. Usage: attackhelper ATTACK...
// (ptrace, mem, vmwrite, getfd, procfiles), or "all"; "unix PATH" and
// "abstract NAME" connect to a unix socket listener outside, and
// "socketpair" checks that a pair of connected unix sockets still works
// (it prints "socketpair works").
#define _GNU_SOURCE
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static int breaches;

static void refused(const char *name, int err) { printf("refused %s: %s\n", name, strerror(err)); }
static void breach(const char *name, const char *what) {
	printf("BREACH %s: %s\n", name, what);
	breaches++;
}

// helperPid is pid 1 of our namespace as /proc names it: the host's pid
// when /proc is the host's, 1 when it is the namespace's own. It is read
// from a pidfd's fdinfo, which the kernel writes in /proc's namespace.
static int helperPid(void) {
	int pfd = syscall(SYS_pidfd_open, 1, 0);
	if (pfd < 0) return 1;
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pfd);
	FILE *f = fopen(path, "r");
	int pid = 1;
	if (f) {
		while (fgets(line, sizeof line, f))
			if (strncmp(line, "Pid:", 4) == 0) pid = atoi(line + 4);
		fclose(f);
	}
	close(pfd);
	return pid;
}

static void attackPtrace(void) {
	if (ptrace(PTRACE_ATTACH, 1, 0, 0) == 0) {
		waitpid(1, 0, __WALL);
		ptrace(PTRACE_DETACH, 1, 0, 0);
		breach("ptrace-attach", "attached to pid 1");
	} else {
		refused("ptrace-attach", errno);
	}
	if (ptrace(PTRACE_SEIZE, 1, 0, 0) == 0) {
		ptrace(PTRACE_DETACH, 1, 0, 0);
		breach("ptrace-seize", "seized pid 1");
	} else {
		refused("ptrace-seize", errno);
	}
}

// attackMem opens the helper's memory, and each of its threads', for
// writing (nothing is written) and for reading.
static void attackMem(int hpid) {
	char path[128];
	snprintf(path, sizeof path, "/proc/%d/mem", hpid);
	int fd = open(path, O_RDWR);
	if (fd >= 0) {
		close(fd);
		breach("proc-mem", path);
	} else {
		refused("proc-mem", errno);
	}
	// For reading too: Landlock refuses the write alone (/proc is no
	// root), the ptrace check refuses both.
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		close(fd);
		breach("proc-mem-read", path);
	} else {
		refused("proc-mem-read", errno);
	}
	snprintf(path, sizeof path, "/proc/%d/task", hpid);
	DIR *d = opendir(path);
	if (!d) return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.') continue;
		char tpath[300];
		snprintf(tpath, sizeof tpath, "/proc/%d/task/%s/mem", hpid, e->d_name);
		fd = open(tpath, O_RDWR);
		if (fd >= 0) {
			close(fd);
			breach("proc-task-mem", tpath);
		} else {
			refused("proc-task-mem", errno);
		}
	}
	closedir(d);
}

// attackVMWrite writes to an address no process maps (the first page):
// EFAULT means the kernel let the write reach the helper's memory.
static void attackVMWrite(void) {
	char buf[8] = {0};
	struct iovec local = {buf, sizeof buf}, remote = {(void *)0x10, sizeof buf};
	long n = process_vm_writev(1, &local, 1, &remote, 1, 0);
	if (n >= 0 || errno == EFAULT)
		breach("process_vm_writev", n >= 0 ? "wrote" : "reached pid 1's memory (EFAULT)");
	else
		refused("process_vm_writev", errno);
	n = process_vm_readv(1, &local, 1, &remote, 1, 0);
	if (n >= 0 || errno == EFAULT)
		breach("process_vm_readv", n >= 0 ? "read" : "reached pid 1's memory (EFAULT)");
	else
		refused("process_vm_readv", errno);
}

// attackGetfd copies pid 1's descriptors 0..64 (its status socket among
// them). EBADF means access was granted and only the number was free.
static void attackGetfd(void) {
	int pfd = syscall(SYS_pidfd_open, 1, 0);
	if (pfd < 0) {
		refused("pidfd_open", errno);
		return;
	}
	int got = 0, reached = 0, err = 0;
	for (int fd = 0; fd <= 64; fd++) {
		int c = syscall(SYS_pidfd_getfd, pfd, fd, 0);
		if (c >= 0) {
			got++;
			close(c);
		} else if (errno == EBADF) {
			reached++;
		} else {
			err = errno;
		}
	}
	close(pfd);
	if (got || reached) {
		char what[64];
		snprintf(what, sizeof what, "%d descriptors copied, %d numbers reached", got, reached);
		breach("pidfd_getfd", what);
	} else {
		refused("pidfd_getfd", err);
	}
}

// attackProcFiles reads what /proc shows of the helper only to who may
// trace it: its environment, its descriptors, its maps, its cwd and root.
static void attackProcFiles(int hpid) {
	const char *names[] = {"environ", "maps", "auxv", "syscall", "stack", "cwd/.", "root/."};
	char path[128], buf[256];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "/proc/%d/%s", hpid, names[i]);
		// Some check at open (environ), some at read (syscall).
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
		int err = errno;
		if (fd >= 0) close(fd);
		if (n >= 0 || (fd >= 0 && err == EISDIR))
			breach("proc-files", path);
		else
			refused("proc-files", err);
	}
	int opened = 0;
	for (int n = 0; n <= 64; n++) {
		snprintf(path, sizeof path, "/proc/%d/fd/%d", hpid, n);
		ssize_t l = readlink(path, buf, sizeof buf - 1);
		int fd = open(path, O_RDONLY);
		if (l >= 0 || fd >= 0) {
			opened++;
			if (fd >= 0) close(fd);
		}
	}
	if (opened) {
		snprintf(buf, sizeof buf, "%d of /proc/%d/fd/* read or opened", opened, hpid);
		breach("proc-fd", buf);
	} else {
		refused("proc-fd", EACCES);
	}
}

// attackUnix connects to the unix socket at path (abstract: the name
// without its leading NUL).
static void attackUnix(const char *name, const char *path, int abstract) {
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0) {
		refused(name, errno);
		return;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	size_t n = strlen(path);
	if (n + 1 > sizeof a.sun_path) n = sizeof a.sun_path - 1;
	memcpy(a.sun_path + abstract, path, n);
	if (connect(s, (struct sockaddr *)&a, offsetof(struct sockaddr_un, sun_path) + abstract + n) == 0) {
		send(s, "pwned\n", 6, MSG_NOSIGNAL);
		breach(name, path);
	} else {
		refused(name, errno);
	}
	close(s);
}

static void socketPair(void) {
	int sv[2];
	char buf[8] = {0};
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && write(sv[0], "ok", 2) == 2 && read(sv[1], buf, 2) == 2 && strcmp(buf, "ok") == 0)
		printf("socketpair works\n");
	else
		printf("socketpair failed: %s\n", strerror(errno));
}

int main(int argc, char **argv) {
	setvbuf(stdout, 0, _IOLBF, 0);
	int hpid = helperPid();
	printf("helper is /proc/%d\n", hpid);
	for (int i = 1; i < argc; i++) {
		int all = strcmp(argv[i], "all") == 0;
		if (all || strcmp(argv[i], "ptrace") == 0) attackPtrace();
		if (all || strcmp(argv[i], "mem") == 0) attackMem(hpid);
		if (all || strcmp(argv[i], "vmwrite") == 0) attackVMWrite();
		if (all || strcmp(argv[i], "getfd") == 0) attackGetfd();
		if (all || strcmp(argv[i], "procfiles") == 0) attackProcFiles(hpid);
		if (strcmp(argv[i], "unix") == 0 && i + 1 < argc) attackUnix("unix-connect", argv[++i], 0);
		if (strcmp(argv[i], "abstract") == 0 && i + 1 < argc) attackUnix("abstract-connect", argv[++i], 1);
		if (strcmp(argv[i], "socketpair") == 0) socketPair();
	}
	return breaches ? 1 : 0;
}
