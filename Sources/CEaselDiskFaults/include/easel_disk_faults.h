#ifndef EASEL_DISK_FAULTS_H
#define EASEL_DISK_FAULTS_H

#include <stdint.h>

// A SQLite VFS that wraps the default one and fails its calls on command:
// writes, syncs, or a full disk, for the op log's files or the blob file's,
// each on its own. It can also hold every write in memory until the sync
// that makes it durable, so that a SIGKILL drops exactly what power loss
// would: every unsynced write (Docs/RELIABILITY.md).
//
// The switches live in a small file both processes map: the server that
// runs on the VFS (`easel serve --disk-faults FILE`) and the run that
// throws the faults (`easel chaos disk`). Every field is read and written
// atomically, so flipping a switch needs no lock and no message.

/// Which files a fault hits: the op log (`x.db`, its WAL and journal) or
/// the blobs beside it (`x.db-blobs` and its WAL).
enum { EASEL_DISK_OPS = 0, EASEL_DISK_BLOBS = 1, EASEL_DISK_FILES = 2 };

/// Kinds of fault, combined as bits.
enum {
    /// Every write fails (SQLITE_IOERR_WRITE): a failing disk.
    EASEL_FAULT_WRITE = 1,
    /// Every sync fails (SQLITE_IOERR_FSYNC), and nothing is synced.
    EASEL_FAULT_SYNC = 2,
    /// Every write that would grow the file fails (SQLITE_FULL), as on a
    /// full disk: writes inside the file's present size still succeed.
    EASEL_FAULT_FULL = 4,
};

typedef struct EaselDiskFaults EaselDiskFaults;

/// Maps the switches in `path`, creating the file (all off) when missing.
/// NULL, with errno set, when it cannot.
EaselDiskFaults *easel_disk_faults_open(const char *path);

/// Makes the faulty VFS SQLite's default in this process, switched by
/// `faults`. Call it before any database is opened. SQLITE_OK or the
/// error of registering it.
int easel_disk_faults_install(EaselDiskFaults *faults);

/// The faults now on for `file` (bits), and switching them.
uint32_t easel_disk_faults_kinds(const EaselDiskFaults *faults, int file);
void easel_disk_faults_set_kinds(EaselDiskFaults *faults, int file, uint32_t kinds);

/// While on, writes wait in the server's memory for their file's sync.
void easel_disk_faults_set_holding(EaselDiskFaults *faults, int on);

/// Calls failed so far, for `file` and one fault `kind` (a single bit).
uint64_t easel_disk_faults_injected(const EaselDiskFaults *faults, int file, uint32_t kind);

/// Bytes written but not yet synced, held in memory: what a power cut now
/// would drop.
uint64_t easel_disk_faults_unsynced_bytes(const EaselDiskFaults *faults);

#endif
