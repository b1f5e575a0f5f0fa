#include "easel_disk_faults.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// The shared switches. The layout is shared by two processes built from
// this same file; `magic` tells a mapped file that was never set up.
struct EaselDiskFaults {
    uint32_t magic;
    uint32_t holding;
    uint32_t kinds[EASEL_DISK_FILES];
    uint64_t injected[EASEL_DISK_FILES][3];
    uint64_t unsyncedBytes;
};

enum { MAGIC = 0x45444b46 };

static EaselDiskFaults *control;
static sqlite3_vfs *inner;

static uint32_t load32(const uint32_t *value) { return __atomic_load_n(value, __ATOMIC_ACQUIRE); }
static void store32(uint32_t *value, uint32_t new) { __atomic_store_n(value, new, __ATOMIC_RELEASE); }
static void add64(uint64_t *value, int64_t delta) { __atomic_fetch_add(value, (uint64_t)delta, __ATOMIC_RELAXED); }

static int kindIndex(uint32_t kind) { return kind == EASEL_FAULT_WRITE ? 0 : kind == EASEL_FAULT_SYNC ? 1 : 2; }

EaselDiskFaults *easel_disk_faults_open(const char *path) {
    int descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (descriptor < 0) return NULL;
    if (ftruncate(descriptor, sizeof(EaselDiskFaults)) != 0) {
        int saved = errno;
        close(descriptor);
        errno = saved;
        return NULL;
    }
    void *mapped = mmap(NULL, sizeof(EaselDiskFaults), PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0);
    close(descriptor);
    if (mapped == MAP_FAILED) return NULL;
    EaselDiskFaults *faults = mapped;
    uint32_t expected = 0;
    // A new file is all zeros: every fault off, nothing held.
    __atomic_compare_exchange_n(&faults->magic, &expected, MAGIC, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return faults;
}

uint32_t easel_disk_faults_kinds(const EaselDiskFaults *faults, int file) { return load32(&faults->kinds[file]); }

void easel_disk_faults_set_kinds(EaselDiskFaults *faults, int file, uint32_t kinds) {
    store32(&faults->kinds[file], kinds);
}

void easel_disk_faults_set_holding(EaselDiskFaults *faults, int on) { store32(&faults->holding, on ? 1 : 0); }

uint64_t easel_disk_faults_injected(const EaselDiskFaults *faults, int file, uint32_t kind) {
    return __atomic_load_n(&faults->injected[file][kindIndex(kind)], __ATOMIC_RELAXED);
}

uint64_t easel_disk_faults_unsynced_bytes(const EaselDiskFaults *faults) {
    return __atomic_load_n(&faults->unsyncedBytes, __ATOMIC_RELAXED);
}

// MARK: Files

// A write not yet synced, while writes are held.
typedef struct Held {
    struct Held *next;
    sqlite3_int64 offset;
    int amount;
    unsigned char bytes[];
} Held;

// The writes not yet synced to one file, shared by every handle on it, as
// an operating system's page cache is: each handle reads what another
// wrote, and a sync through any of them writes it all out. (The server
// opens the op log twice: its storage thread writes, its snapshot thread
// reads.) Handles on one file run on different threads, so `lock` guards
// the list.
typedef struct HeldFile {
    struct HeldFile *next;
    char *name;
    int handles;
    pthread_mutex_t lock;
    Held *first, *last;
    sqlite3_int64 heldEnd;
} HeldFile;

typedef struct FaultFile {
    sqlite3_file base;
    sqlite3_file *real;
    // EASEL_DISK_OPS or EASEL_DISK_BLOBS, or -1 for a file no fault touches
    // (a temporary file, the WAL index).
    int file;
    // Shared with the file's other handles; NULL when no fault touches it.
    HeldFile *held;
} FaultFile;

static pthread_mutex_t openLock = PTHREAD_MUTEX_INITIALIZER;
static HeldFile *heldFiles;

static HeldFile *claim(const char *name) {
    pthread_mutex_lock(&openLock);
    HeldFile *h = heldFiles;
    while (h && strcmp(h->name, name) != 0) h = h->next;
    if (h) {
        h->handles += 1;
    } else if ((h = calloc(1, sizeof(HeldFile)))) {
        h->name = strdup(name);
        h->handles = 1;
        pthread_mutex_init(&h->lock, NULL);
        h->next = heldFiles;
        heldFiles = h;
    }
    pthread_mutex_unlock(&openLock);
    return h;
}

static int fail(FaultFile *f, uint32_t kind, int code) {
    add64(&control->injected[f->file][kindIndex(kind)], 1);
    return code;
}

static uint32_t faultsOn(FaultFile *f) { return f->file < 0 ? 0 : load32(&control->kinds[f->file]); }

// The functions below that take a HeldFile run with its lock held.

static void dropHeld(HeldFile *h) {
    while (h->first) {
        Held *next = h->first->next;
        add64(&control->unsyncedBytes, -(int64_t)h->first->amount);
        free(h->first);
        h->first = next;
    }
    h->last = NULL;
    h->heldEnd = 0;
}

// Writes what is held to the real file, oldest first; on an error what is
// left stays held.
static int writeHeld(HeldFile *h, sqlite3_file *real) {
    while (h->first) {
        Held *held = h->first;
        int rc = real->pMethods->xWrite(real, held->bytes, held->amount, held->offset);
        if (rc != SQLITE_OK) return rc;
        h->first = held->next;
        add64(&control->unsyncedBytes, -(int64_t)held->amount);
        free(held);
    }
    h->last = NULL;
    h->heldEnd = 0;
    return SQLITE_OK;
}

static int realSize(FaultFile *f, sqlite3_int64 *size) { return f->real->pMethods->xFileSize(f->real, size); }

// Lets go of the file's shared writes; the last handle writes them out
// first. What close(2) leaves unsynced is in the page cache, where a cut
// could still lose it; here it is written out unsynced and a later cut
// keeps it. The server keeps its files open while it runs, so its cuts
// never meet this case.
static void release(FaultFile *f) {
    HeldFile *h = f->held;
    if (!h) return;
    f->held = NULL;
    // The last handle writes out and unlists under `openLock`, so a handle
    // opened meanwhile waits, then finds the writes in the file, not a
    // fresh, empty list beside writes still going in.
    pthread_mutex_lock(&openLock);
    if (--h->handles > 0) {
        pthread_mutex_unlock(&openLock);
        return;
    }
    pthread_mutex_lock(&h->lock);
    writeHeld(h, f->real);
    dropHeld(h);
    pthread_mutex_unlock(&h->lock);
    for (HeldFile **link = &heldFiles; *link; link = &(*link)->next) {
        if (*link == h) {
            *link = h->next;
            break;
        }
    }
    pthread_mutex_unlock(&openLock);
    pthread_mutex_destroy(&h->lock);
    free(h->name);
    free(h);
}

static int faultClose(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    release(f);
    return f->real->pMethods->xClose(f->real);
}

static int faultRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *f = (FaultFile *)file;
    HeldFile *h = f->held;
    if (!h) return f->real->pMethods->xRead(f->real, buffer, amount, offset);
    pthread_mutex_lock(&h->lock);
    int rc = f->real->pMethods->xRead(f->real, buffer, amount, offset);
    if (!h->first || (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ)) {
        pthread_mutex_unlock(&h->lock);
        return rc;
    }
    // A short read zero-fills the rest; what is held lies on top, in order.
    for (Held *held = h->first; held; held = held->next) {
        sqlite3_int64 start = held->offset > offset ? held->offset : offset;
        sqlite3_int64 end = held->offset + held->amount;
        if (offset + amount < end) end = offset + amount;
        if (start < end) {
            memcpy((unsigned char *)buffer + (start - offset), held->bytes + (start - held->offset), (size_t)(end - start));
        }
    }
    sqlite3_int64 size;
    rc = realSize(f, &size);
    sqlite3_int64 heldEnd = h->heldEnd;
    pthread_mutex_unlock(&h->lock);
    if (rc != SQLITE_OK) return SQLITE_IOERR_READ;
    if (heldEnd > size) size = heldEnd;
    return offset + amount <= size ? SQLITE_OK : SQLITE_IOERR_SHORT_READ;
}

static int faultWrite(sqlite3_file *file, const void *bytes, int amount, sqlite3_int64 offset) {
    FaultFile *f = (FaultFile *)file;
    HeldFile *h = f->held;
    if (!h) return f->real->pMethods->xWrite(f->real, bytes, amount, offset);
    uint32_t kinds = faultsOn(f);
    if (kinds & EASEL_FAULT_WRITE) return fail(f, EASEL_FAULT_WRITE, SQLITE_IOERR_WRITE);
    pthread_mutex_lock(&h->lock);
    int rc = SQLITE_OK;
    if (kinds & EASEL_FAULT_FULL) {
        sqlite3_int64 size;
        if (realSize(f, &size) != SQLITE_OK) {
            rc = SQLITE_IOERR_WRITE;
        } else {
            if (h->heldEnd > size) size = h->heldEnd;
            if (offset + amount > size) rc = fail(f, EASEL_FAULT_FULL, SQLITE_FULL);
        }
    }
    if (rc != SQLITE_OK) {
        pthread_mutex_unlock(&h->lock);
        return rc;
    }
    // Once one write waits, the next ones wait behind it, so they reach
    // the file in order.
    if (!load32(&control->holding) && !h->first) {
        rc = f->real->pMethods->xWrite(f->real, bytes, amount, offset);
        pthread_mutex_unlock(&h->lock);
        return rc;
    }
    Held *held = malloc(sizeof(Held) + (size_t)amount);
    if (!held) {
        pthread_mutex_unlock(&h->lock);
        return SQLITE_IOERR_NOMEM;
    }
    held->next = NULL;
    held->offset = offset;
    held->amount = amount;
    memcpy(held->bytes, bytes, (size_t)amount);
    if (h->last) h->last->next = held; else h->first = held;
    h->last = held;
    if (offset + amount > h->heldEnd) h->heldEnd = offset + amount;
    add64(&control->unsyncedBytes, amount);
    pthread_mutex_unlock(&h->lock);
    return SQLITE_OK;
}

static int faultTruncate(sqlite3_file *file, sqlite3_int64 size) {
    FaultFile *f = (FaultFile *)file;
    HeldFile *h = f->held;
    if (!h) return f->real->pMethods->xTruncate(f->real, size);
    pthread_mutex_lock(&h->lock);
    if (h->first) {
        // Held writes past the new end are gone with it; one across it is cut.
        Held **link = &h->first;
        h->last = NULL;
        h->heldEnd = 0;
        while (*link) {
            Held *held = *link;
            if (held->offset >= size) {
                *link = held->next;
                add64(&control->unsyncedBytes, -(int64_t)held->amount);
                free(held);
                continue;
            }
            if (held->offset + held->amount > size) {
                int cut = (int)(held->offset + held->amount - size);
                add64(&control->unsyncedBytes, -(int64_t)cut);
                held->amount -= cut;
            }
            if (held->offset + held->amount > h->heldEnd) h->heldEnd = held->offset + held->amount;
            h->last = held;
            link = &held->next;
        }
    }
    int rc = f->real->pMethods->xTruncate(f->real, size);
    pthread_mutex_unlock(&h->lock);
    return rc;
}

static int faultSync(sqlite3_file *file, int flags) {
    FaultFile *f = (FaultFile *)file;
    if (faultsOn(f) & EASEL_FAULT_SYNC) return fail(f, EASEL_FAULT_SYNC, SQLITE_IOERR_FSYNC);
    HeldFile *h = f->held;
    if (h) {
        pthread_mutex_lock(&h->lock);
        int rc = writeHeld(h, f->real);
        pthread_mutex_unlock(&h->lock);
        if (rc != SQLITE_OK) return rc;
    }
    return f->real->pMethods->xSync(f->real, flags);
}

static int faultFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    FaultFile *f = (FaultFile *)file;
    HeldFile *h = f->held;
    if (!h) return realSize(f, size);
    pthread_mutex_lock(&h->lock);
    int rc = realSize(f, size);
    if (rc == SQLITE_OK && h->heldEnd > *size) *size = h->heldEnd;
    pthread_mutex_unlock(&h->lock);
    return rc;
}

static int faultLock(sqlite3_file *file, int level) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xLock(f->real, level);
}

static int faultUnlock(sqlite3_file *file, int level) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xUnlock(f->real, level);
}

static int faultCheckReservedLock(sqlite3_file *file, int *reserved) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xCheckReservedLock(f->real, reserved);
}

static int faultFileControl(sqlite3_file *file, int op, void *argument) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xFileControl(f->real, op, argument);
}

static int faultSectorSize(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xSectorSize(f->real);
}

static int faultDeviceCharacteristics(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xDeviceCharacteristics(f->real);
}

// The WAL index is shared memory, not the disk: no fault reaches it, and a
// power cut loses all of it anyway (SQLite rebuilds it from the WAL).
static int faultShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **mapped) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xShmMap(f->real, region, size, extend, mapped);
}

static int faultShmLock(sqlite3_file *file, int offset, int count, int flags) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xShmLock(f->real, offset, count, flags);
}

static void faultShmBarrier(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    f->real->pMethods->xShmBarrier(f->real);
}

static int faultShmUnmap(sqlite3_file *file, int deleteFlag) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xShmUnmap(f->real, deleteFlag);
}

// Version 2: no xFetch, so SQLite never reads a page through a memory map
// of the real file, around the writes still held.
static const sqlite3_io_methods faultMethods = {
    2,
    faultClose,
    faultRead,
    faultWrite,
    faultTruncate,
    faultSync,
    faultFileSize,
    faultLock,
    faultUnlock,
    faultCheckReservedLock,
    faultFileControl,
    faultSectorSize,
    faultDeviceCharacteristics,
    faultShmMap,
    faultShmLock,
    faultShmBarrier,
    faultShmUnmap,
    NULL,
    NULL,
};

// MARK: The VFS: opening files is its own, the rest is the default's.

static int fileOf(const char *name, int flags) {
    if (!name || !(flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL))) return -1;
    const char *slash = strrchr(name, '/');
    return strstr(slash ? slash + 1 : name, "-blobs") ? EASEL_DISK_BLOBS : EASEL_DISK_OPS;
}

static int faultOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *f = (FaultFile *)file;
    f->real = (sqlite3_file *)&f[1];
    f->file = fileOf(name, flags);
    f->held = NULL;
    int rc = inner->xOpen(inner, name, f->real, flags, outFlags);
    f->base.pMethods = f->real->pMethods ? &faultMethods : NULL;
    if (rc == SQLITE_OK && f->file >= 0 && !(f->held = claim(name))) {
        f->real->pMethods->xClose(f->real);
        f->base.pMethods = NULL;
        return SQLITE_NOMEM;
    }
    return rc;
}

static int faultDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    return inner->xDelete(inner, name, syncDirectory);
}

static int faultAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return inner->xAccess(inner, name, flags, result);
}

static int faultFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return inner->xFullPathname(inner, name, size, out);
}

static void *faultDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return inner->xDlOpen(inner, name);
}

static void faultDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    inner->xDlError(inner, size, message);
}

static void (*faultDlSym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    (void)vfs;
    return inner->xDlSym(inner, library, symbol);
}

static void faultDlClose(sqlite3_vfs *vfs, void *library) {
    (void)vfs;
    inner->xDlClose(inner, library);
}

static int faultRandomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return inner->xRandomness(inner, size, out);
}

static int faultSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return inner->xSleep(inner, microseconds);
}

static int faultCurrentTime(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return inner->xCurrentTime(inner, now);
}

static int faultGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return inner->xGetLastError(inner, size, message);
}

static int faultCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return inner->xCurrentTimeInt64(inner, now);
}

static sqlite3_vfs faultVFS;

int easel_disk_faults_install(EaselDiskFaults *faults) {
    if (inner) return SQLITE_MISUSE;
    inner = sqlite3_vfs_find(NULL);
    if (!inner || inner->iVersion < 2) return SQLITE_ERROR;
    control = faults;
    // A new process holds nothing yet, whatever the last one held.
    __atomic_store_n(&faults->unsyncedBytes, 0, __ATOMIC_RELAXED);
    faultVFS = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(FaultFile) + inner->szOsFile,
        .mxPathname = inner->mxPathname,
        .zName = "easel-disk-faults",
        .xOpen = faultOpen,
        .xDelete = faultDelete,
        .xAccess = faultAccess,
        .xFullPathname = faultFullPathname,
        .xDlOpen = faultDlOpen,
        .xDlError = faultDlError,
        .xDlSym = faultDlSym,
        .xDlClose = faultDlClose,
        .xRandomness = faultRandomness,
        .xSleep = faultSleep,
        .xCurrentTime = faultCurrentTime,
        .xGetLastError = faultGetLastError,
        .xCurrentTimeInt64 = faultCurrentTimeInt64,
    };
    return sqlite3_vfs_register(&faultVFS, 1);
}
