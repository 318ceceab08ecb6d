package helper

import (
	"sync"
	"syscall"
	"unsafe"
)

// The view (docs/adr/0014): the command runs in a mount namespace whose
// root is a fresh tmpfs holding only what the parent listed (ViewOp):
// the system directories and toolchains read-only, the roots and the
// session's temporary directory read-write, a home directory that is an
// empty read-only tmpfs with a few read-only entries, private /tmp, /dev
// and /proc, and every protected path that existed before the run bound
// read-only onto itself. What is not listed is absent, so a secret the
// parent never heard of cannot be read, and a write outside the roots
// (chmod, utimes, xattrs included) fails with EROFS when it happens.
//
// Every source is cloned (open_tree) before anything is mounted over
// it; a root is cloned from the path only after its inode was checked
// against the descriptor the jail opened; a protected path and a mask
// are reached with openat2(RESOLVE_NO_SYMLINKS) and mounted onto that
// descriptor, never re-resolved.

// System call numbers shared by amd64 and arm64 (the new calls have one
// number on every architecture).
const (
	sysOpenTree     = 428
	sysMoveMount    = 429
	sysFsopen       = 430
	sysFsconfig     = 431
	sysFsmount      = 432
	sysOpenat2      = 437
	sysMountSetattr = 442

	openTreeClone       = 1
	atRecursive         = 0x8000
	atEmptyPath         = 0x1000
	moveMountFEmptyPath = 0x4
	moveMountTEmptyPath = 0x40
	fsconfigSetString   = 1
	fsconfigCmdCreate   = 6

	mountAttrRdonly = 0x1
	mountAttrNosuid = 0x2
	mountAttrNodev  = 0x4

	resolveNoMagiclinks = 0x2
	resolveNoSymlinks   = 0x4
)

// View flags the helper reports beside the command's status (the second
// word of the status record).
const (
	// ViewFailed: the view could not be made; the command ran without
	// it (only when the view was not required).
	ViewFailed = 1 << iota
	// ViewHostProc: /proc is the host's, read-only (a PID namespace's
	// own could not be mounted: a container that masks parts of /proc).
	ViewHostProc
	// ViewNoStartDir: the start directory could not be found in the
	// view (moved since the jail opened it); nothing was started.
	ViewNoStartDir
	// MetaUnsupervised: no view, and the metadata supervision
	// (meta_linux.go) could not be installed either: chmod, chown and
	// utimes were not confined to the roots.
	MetaUnsupervised
)

// The view's system calls are made raw (no entersyscall): the helper's
// goroutine is locked to its thread, and every blocking call a scheduler
// sees long enough hands the thread's P to another thread and back, two
// context switches a call, dozens a run.

func rawPath(p string) (*byte, error) { return syscall.BytePtrFromString(p) }

func rawErr(errno syscall.Errno) error {
	if errno != 0 {
		return errno
	}
	return nil
}

func mountRaw(src, target, fstype string, flags uintptr, data string) error {
	s, err := rawPath(src)
	if err != nil {
		return err
	}
	t, err := rawPath(target)
	if err != nil {
		return err
	}
	f, err := rawPath(fstype)
	if err != nil {
		return err
	}
	var d *byte
	if data != "" {
		if d, err = rawPath(data); err != nil {
			return err
		}
	}
	_, _, errno := syscall.RawSyscall6(syscall.SYS_MOUNT, uintptr(unsafe.Pointer(s)), uintptr(unsafe.Pointer(t)),
		uintptr(unsafe.Pointer(f)), flags, uintptr(unsafe.Pointer(d)), 0)
	return rawErr(errno)
}

func openRaw(p string, flags int, mode uint32) (int, error) {
	b, err := rawPath(p)
	if err != nil {
		return -1, err
	}
	cwd := atFDCWD
	r, _, errno := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(b)), uintptr(flags), uintptr(mode), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

func mkdirRaw(p string, mode uint32) error {
	b, err := rawPath(p)
	if err != nil {
		return err
	}
	cwd := atFDCWD
	_, _, errno := syscall.RawSyscall(syscall.SYS_MKDIRAT, uintptr(cwd), uintptr(unsafe.Pointer(b)), uintptr(mode))
	return rawErr(errno)
}

func symlinkRaw(target, p string) error {
	t, err := rawPath(target)
	if err != nil {
		return err
	}
	b, err := rawPath(p)
	if err != nil {
		return err
	}
	cwd := atFDCWD
	_, _, errno := syscall.RawSyscall(syscall.SYS_SYMLINKAT, uintptr(unsafe.Pointer(t)), uintptr(cwd), uintptr(unsafe.Pointer(b)))
	return rawErr(errno)
}

// existsRaw reports whether p exists (a final link counts as itself).
func existsRaw(p string) bool {
	fd, err := openRaw(p, oPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
	return true
}

// clone is a detached copy of a source, made before the view hides it.
type clone struct {
	fd  int
	dir bool
}

// openTree clones the mount tree at fd (recursively: a mount with
// mounts beneath it inherited from a more privileged namespace cannot be
// cloned alone) and sets attr on every mount of the copy.
func openTree(fd int, attr uint64) (clone, error) {
	r, _, errno := syscall.RawSyscall(sysOpenTree, uintptr(fd), uintptr(unsafe.Pointer(&empty[0])),
		openTreeClone|syscall.O_CLOEXEC|atRecursive|atEmptyPath)
	if errno != 0 {
		return clone{fd: -1}, errno
	}
	c := clone{fd: int(r)}
	var st syscall.Stat_t
	if err := syscall.Fstat(c.fd, &st); err == nil {
		c.dir = st.Mode&syscall.S_IFMT == syscall.S_IFDIR
	}
	if attr != 0 {
		if err := setAttr(c.fd, "", atEmptyPath|atRecursive, attr); err != nil {
			syscall.Close(c.fd)
			return clone{fd: -1}, err
		}
	}
	return c, nil
}

var empty = [1]byte{0}

// mountAttr is struct mount_attr.
type mountAttr struct{ set, clr, propagation, userns uint64 }

func setAttr(dfd int, path string, flags uintptr, set uint64) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	a := mountAttr{set: set}
	_, _, errno := syscall.RawSyscall6(sysMountSetattr, uintptr(dfd), uintptr(unsafe.Pointer(p)), flags,
		uintptr(unsafe.Pointer(&a)), unsafe.Sizeof(a), 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// moveMount attaches the detached mount from at path (AT_FDCWD-relative)
// or, when path is "", onto the descriptor to itself.
func moveMount(from, to int, path string) error {
	flags := uintptr(moveMountFEmptyPath)
	if path == "" {
		flags |= moveMountTEmptyPath
	}
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	_, _, errno := syscall.RawSyscall6(sysMoveMount, uintptr(from), uintptr(unsafe.Pointer(&empty[0])),
		uintptr(to), uintptr(unsafe.Pointer(p)), flags, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// openHow is struct open_how.
type openHow struct{ flags, mode, resolve uint64 }

// openNoLinks opens path following no symbolic link in any component.
func openNoLinks(path string, flags int) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	how := openHow{flags: uint64(flags | syscall.O_CLOEXEC), resolve: resolveNoSymlinks | resolveNoMagiclinks}
	cwd := atFDCWD
	r, _, errno := syscall.RawSyscall6(sysOpenat2, uintptr(cwd), uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

const atFDCWD = -100

// emptyTmpfs returns a detached, read-only, empty tmpfs (a mask over a
// directory).
func emptyTmpfs() (int, error) {
	name := [6]byte{'t', 'm', 'p', 'f', 's', 0}
	r, _, errno := syscall.RawSyscall(sysFsopen, uintptr(unsafe.Pointer(&name[0])), 1, 0)
	if errno != 0 {
		return -1, errno
	}
	fs := int(r)
	defer syscall.Close(fs)
	key, val := [5]byte{'m', 'o', 'd', 'e', 0}, [5]byte{'0', '5', '5', '5', 0}
	if _, _, errno := syscall.RawSyscall6(sysFsconfig, uintptr(fs), fsconfigSetString,
		uintptr(unsafe.Pointer(&key[0])), uintptr(unsafe.Pointer(&val[0])), 0, 0); errno != 0 {
		return -1, errno
	}
	if _, _, errno := syscall.RawSyscall6(sysFsconfig, uintptr(fs), fsconfigCmdCreate, 0, 0, 0, 0); errno != 0 {
		return -1, errno
	}
	r, _, errno = syscall.RawSyscall(sysFsmount, uintptr(fs), 1 /* FSMOUNT_CLOEXEC */, mountAttrRdonly|mountAttrNosuid|mountAttrNodev)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

// sameFile reports whether a and b are one file.
func sameFile(a, b int) bool {
	var sa, sb syscall.Stat_t
	if syscall.Fstat(a, &sa) != nil || syscall.Fstat(b, &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// viewDevices are the device files of the view's /dev, bound from the
// host's.
var viewDevices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// newRoot is where the view is assembled before pivot_root: a tmpfs
// mounted over /tmp in the helper's own mount namespace (every source
// beneath /tmp was cloned first).
const newRoot = "/tmp"

// buildView makes cfg's view and enters it: on return the helper's root
// is the view's and its working directory is cfg.ViewCwd, checked to be
// the directory dirFD names. It returns the view flags to report. An
// error with entered set came after the helper entered the view, which
// cannot be left: the run must fail.
func buildView(cfg *Config, dirFD int) (flags uint32, entered bool, err error) {
	flags, err = makeView(cfg)
	if err != nil {
		return 0, false, err
	}
	if err := enterView(cfg, dirFD); err != nil {
		return 0, true, err
	}
	return flags, true, nil
}

// makeView assembles the view under newRoot.
func makeView(cfg *Config) (uint32, error) {
	var flags uint32
	if err := mountRaw("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return 0, wrap("private mounts", err)
	}
	// Clone every source while it is still where the parent saw it.
	clones := make([]clone, len(cfg.View))
	defer func() {
		for _, c := range clones {
			if c.fd > 0 {
				syscall.Close(c.fd)
			}
		}
	}()
	for i, op := range cfg.View {
		clones[i].fd = -1
		var attr uint64
		switch op.Kind {
		case ViewRead:
			attr = mountAttrRdonly | mountAttrNosuid | mountAttrNodev
		case ViewWrite, ViewRoot:
			attr = mountAttrNosuid | mountAttrNodev
		default:
			continue
		}
		src := op.Src
		if src == "" {
			src = op.Path
		}
		fd, err := openRaw(src, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			if op.Kind == ViewRead {
				continue // gone meanwhile: nothing to show
			}
			return 0, wrap("open "+src, err)
		}
		if op.Kind == ViewRoot && (op.FD < 0 || !sameFile(fd, op.FD)) {
			syscall.Close(fd)
			return 0, wrap("root "+src, syscall.ESTALE) // moved since the jail opened it
		}
		c, err := openTree(fd, attr)
		syscall.Close(fd)
		if err != nil {
			return 0, wrap("clone "+src, err)
		}
		clones[i] = c
	}
	devs := make([]clone, len(viewDevices))
	for i, d := range viewDevices {
		devs[i].fd = -1
		if fd, err := openRaw("/dev/"+d, oPath|syscall.O_CLOEXEC, 0); err == nil {
			devs[i], _ = openTree(fd, mountAttrNosuid)
			syscall.Close(fd)
		}
	}
	defer func() {
		for _, c := range devs {
			if c.fd > 0 {
				syscall.Close(c.fd)
			}
		}
	}()
	hostProc := clone{fd: -1}
	if fd, err := openRaw("/proc", oPath|syscall.O_CLOEXEC, 0); err == nil {
		hostProc, _ = openTree(fd, mountAttrRdonly|mountAttrNosuid|mountAttrNodev)
		syscall.Close(fd)
	}
	defer func() {
		if hostProc.fd > 0 {
			syscall.Close(hostProc.fd)
		}
	}()

	if err := mountRaw("tmpfs", newRoot, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755"); err != nil {
		return 0, wrap("root tmpfs", err)
	}
	built := false
	defer func() {
		if !built {
			// The command runs without a view (not required): give it
			// back the /tmp the view was being assembled over.
			syscall.Unmount(newRoot, syscall.MNT_DETACH)
		}
	}()
	var readOnly []string // tmpfs mounts made read-only once filled
	for _, i := range viewOrder(cfg.View) {
		op := cfg.View[i]
		target := newRoot + op.Path
		if op.Path == "/" {
			continue
		}
		var err error
		switch op.Kind {
		case ViewRead, ViewWrite, ViewRoot:
			if clones[i].fd < 0 {
				continue
			}
			if err = makePath(target, clones[i].dir); err == nil {
				err = moveMount(clones[i].fd, atFDCWD, target)
			}
		case ViewTmpfs, ViewHome:
			mode := "mode=0755"
			if op.Kind == ViewTmpfs {
				mode = "mode=1777"
			}
			if err = makePath(target, true); err == nil {
				err = mountRaw("tmpfs", target, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, mode)
			}
			if op.Kind == ViewHome {
				readOnly = append(readOnly, target)
			}
		case ViewLink:
			if err = makePath(parentOf(target), true); err == nil {
				err = symlinkRaw(op.Src, target)
			}
		case ViewFile:
			if err = makePath(parentOf(target), true); err == nil {
				err = writeNew(target, op.Src)
			}
		default:
			continue
		}
		if err != nil {
			return 0, wrap("view "+op.Path, err)
		}
	}
	// /dev: a tmpfs with the few devices a build needs, a pts of its
	// own, shm.
	if err := makePath(newRoot+"/dev", true); err != nil {
		return 0, wrap("view /dev", err)
	}
	if err := mountRaw("tmpfs", newRoot+"/dev", "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=0755"); err != nil {
		return 0, wrap("view /dev", err)
	}
	for i, d := range viewDevices {
		if devs[i].fd < 0 {
			continue
		}
		t := newRoot + "/dev/" + d
		if err := makePath(t, false); err != nil {
			return 0, wrap("view /dev/"+d, err)
		}
		if err := moveMount(devs[i].fd, atFDCWD, t); err != nil {
			return 0, wrap("view /dev/"+d, err)
		}
	}
	for _, l := range [][2]string{{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}, {"pts/ptmx", "ptmx"}} {
		symlinkRaw(l[0], newRoot+"/dev/"+l[1])
	}
	if makePath(newRoot+"/dev/pts", true) == nil {
		mountRaw("devpts", newRoot+"/dev/pts", "devpts", syscall.MS_NOSUID|syscall.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620")
	}
	if makePath(newRoot+"/dev/shm", true) == nil {
		mountRaw("tmpfs", newRoot+"/dev/shm", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777")
	}
	// /proc: this PID namespace's own, so no outside process is seen.
	if err := makePath(newRoot+"/proc", true); err != nil {
		return 0, wrap("view /proc", err)
	}
	if err := mountRaw("proc", newRoot+"/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		flags |= ViewHostProc
		if hostProc.fd < 0 || moveMount(hostProc.fd, atFDCWD, newRoot+"/proc") != nil {
			return 0, wrap("view /proc", err)
		}
	}
	for _, t := range readOnly {
		if err := setAttr(atFDCWD, t, 0, mountAttrRdonly); err != nil {
			return 0, wrap("read-only "+t, err)
		}
	}
	built = true
	return flags, nil
}

// enterView makes the view the helper's root, covers the protected
// paths and the masks, and enters the start directory.
func enterView(cfg *Config, dirFD int) error {
	// The old root goes away with every mount beneath it.
	if err := syscall.Chdir(newRoot); err != nil {
		return wrap("enter view", err)
	}
	if err := syscall.PivotRoot(".", "."); err != nil {
		return wrap("pivot_root", err)
	}
	if err := syscall.Unmount(".", syscall.MNT_DETACH); err != nil {
		return wrap("detach the old root", err)
	}
	if err := syscall.Chdir("/"); err != nil {
		return wrap("enter view", err)
	}
	if err := setAttr(atFDCWD, "/", 0, mountAttrRdonly); err != nil {
		return wrap("read-only /", err)
	}
	if err := overlays(cfg.View); err != nil {
		return err
	}
	// Protected paths read-only onto themselves, masks over secrets the
	// binds would show.
	for _, op := range cfg.View {
		if op.Kind != ViewProtect && op.Kind != ViewMask {
			continue
		}
		if err := cover(op); err != nil {
			return wrap("protect "+op.Path, err)
		}
	}
	if cfg.ViewCwd != "" {
		if err := enterStartDir(cfg.ViewCwd, dirFD); err != nil {
			return err
		}
	}
	return nil
}

// errStartDir is the failure to find the start directory in the view:
// it was moved (or swapped for a link) since the jail opened it.
var errStartDir = wrap("start directory", syscall.ESTALE)

// enterStartDir enters, in the view, the directory dirFD names: by its
// path (opened with no link in any component), only when it is that
// directory. A directory moved meanwhile is looked for again at the path
// /proc gives for dirFD now, a few times; then the run fails
// (errStartDir), entering nothing.
func enterStartDir(path string, dirFD int) error {
	if dirFD < 0 {
		return errStartDir
	}
	for try := 0; try < 20; try++ {
		if try > 0 {
			var buf [4096]byte
			n, err := syscall.Readlink("/proc/self/fd/"+itoa(dirFD), buf[:])
			if err != nil || n == 0 || buf[0] != '/' {
				return errStartDir
			}
			path = string(buf[:n])
		}
		fd, err := openNoLinks(path, syscall.O_RDONLY|syscall.O_DIRECTORY)
		if err != nil {
			continue
		}
		ok := sameFile(fd, dirFD)
		if ok {
			err = syscall.Fchdir(fd)
		}
		syscall.Close(fd)
		if ok {
			return err
		}
	}
	return errStartDir
}

// cover mounts, onto the path op names (reached with no link in any
// component; a path that is a link, or missing, is left alone), a
// read-only copy of itself (ViewProtect) or an empty read-only mask
// (ViewMask: an empty tmpfs over a directory, /dev/null over a file).
func cover(op ViewOp) error {
	fd, err := openNoLinks(op.Path, oPath|syscall.O_NOFOLLOW)
	if err != nil {
		return nil // missing, or behind a link: the after-run check covers it
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	isDir := st.Mode&syscall.S_IFMT == syscall.S_IFDIR
	if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		return nil
	}
	var src int
	switch {
	case op.Kind == ViewProtect:
		c, err := openTree(fd, mountAttrRdonly|mountAttrNosuid|mountAttrNodev)
		if err != nil {
			return err
		}
		src = c.fd
	case isDir:
		if src, err = emptyTmpfs(); err != nil {
			return err
		}
	default:
		nfd, err := openRaw("/dev/null", oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		c, err := openTree(nfd, mountAttrRdonly|mountAttrNosuid)
		syscall.Close(nfd)
		if err != nil {
			return err
		}
		src = c.fd
	}
	defer syscall.Close(src)
	return moveMount(src, fd, "")
}

// viewOrder returns the indices of ops in the order they are made: by
// depth, so that a directory is mounted before what is mounted beneath
// it, keeping the parent's order among paths of one depth.
func viewOrder(ops []ViewOp) []int {
	idx := make([]int, 0, len(ops))
	for i := range ops {
		idx = append(idx, i)
	}
	depth := func(p string) int {
		n := 0
		for i := 0; i < len(p); i++ {
			if p[i] == '/' {
				n++
			}
		}
		return n
	}
	// insertion sort: a few dozen entries, and stable.
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && depth(ops[idx[j]].Path) < depth(ops[idx[j-1]].Path); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	return idx
}

// makePath makes p (a directory when dir, else an empty file) and the
// directories above it, where they are missing.
func makePath(p string, dir bool) error {
	if existsRaw(p) {
		return nil
	}
	if err := makePath(parentOf(p), true); err != nil {
		return err
	}
	if dir {
		if err := mkdirRaw(p, 0o755); err != nil && err != syscall.EEXIST {
			return err
		}
		return nil
	}
	fd, err := openRaw(p, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		if err == syscall.EEXIST {
			return nil
		}
		return err
	}
	return syscall.Close(fd)
}

func parentOf(p string) string {
	i := len(p) - 1
	for i > 0 && p[i] != '/' {
		i--
	}
	if i == 0 {
		return "/"
	}
	return p[:i]
}

// writeNew creates p with data (mode 0644).
func writeNew(p, data string) error {
	fd, err := openRaw(p, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	for b := []byte(data); len(b) > 0; {
		n, err := syscall.Write(fd, b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// overlay mounts, over the read-only op.Path, an overlay whose writes go
// to op.Src (upper and work directories made there). Where the kernel
// refuses the overlay (an upper directory on a file system that cannot
// hold one, an overlay itself), the layer's upper directory alone is
// bound there: the cache is then cold but writable, and the user's
// still untouched.
// overlays mounts the view's cache layers, side by side: most of an
// overlay's mount is the kernel's set-up of its work directory on the
// layer's file system (clearing and remaking it, probing xattrs, whiteouts
// and O_TMPFILE: about a millisecond on ext4), which takes no lock the
// others wait for, and the mounts land on different paths. The threads
// share the view (its root and mounts).
func overlays(ops []ViewOp) error {
	var ovs []ViewOp
	for _, op := range ops {
		if op.Kind == ViewOverlay {
			ovs = append(ovs, op)
		}
	}
	errs := make([]error, len(ovs))
	var wg sync.WaitGroup
	for i, op := range ovs {
		if i == len(ovs)-1 {
			errs[i] = overlay(op) // the last one on this thread
			break
		}
		wg.Go(func() { errs[i] = overlay(op) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return wrap("cache layer "+ovs[i].Path, err)
		}
	}
	return nil
}

func overlay(op ViewOp) error {
	upper, work := op.Src+"/upper", op.Src+"/work"
	if err := makePath(upper, true); err != nil {
		return err
	}
	if err := makePath(work, true); err != nil {
		return err
	}
	opts := "lowerdir=" + op.Path + ",upperdir=" + upper + ",workdir=" + work + ",userxattr"
	if mountRaw("overlay", op.Path, "overlay", syscall.MS_NOSUID|syscall.MS_NODEV, opts) == nil {
		return nil
	}
	fd, err := openNoLinks(upper, oPath|syscall.O_DIRECTORY)
	if err != nil {
		return err
	}
	c, err := openTree(fd, mountAttrNosuid|mountAttrNodev)
	syscall.Close(fd)
	if err != nil {
		return err
	}
	defer syscall.Close(c.fd)
	return moveMount(c.fd, atFDCWD, op.Path)
}
