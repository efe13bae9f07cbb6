// SPDX-License-Identifier: GPL-2.0
/*
 * tbcount: a QEMU TCG plugin that counts the guest instructions each vCPU
 * executes, by the address of the translation block they belong to, while
 * a window is open. tools/testing/bench/pcprof --icount loads it; the
 * counts, unlike samples, do not depend on how busy the host is, so two
 * runs of one build agree to within the traffic's own variation.
 *
 *   qemu-system-x86_64 ... -plugin tbcount.so,dir=DIR
 *
 * The window opens when DIR/pcload.start exists and closes when
 * DIR/pcload.stop does (pcload.sh creates them in the guest's output
 * directory, which is DIR on the host). At QEMU's exit it writes
 * DIR/tbcount.txt: one line per block that ran in the window, "vaddr
 * insns execs-of-vCPU-0 execs-of-vCPU-1 ...", in hexadecimal for the
 * address. Blocks in user space are keyed by address too, although
 * processes share addresses: the report only sums them.
 *
 * tbcount.h declares the part of QEMU's plugin API it uses.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tbcount.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define TBC_VCPUS	4
#define TBC_BITS	20
#define TBC_SLOTS	(2U << (TBC_BITS - 1))	/* 2 to the TBC_BITS */

struct tbc_block {
	uint64_t vaddr;
	uint32_t insns;		/* of the block's latest translation */
	bool used;
	uint64_t execs[TBC_VCPUS];
};

static struct tbc_block *tbc_table;
static struct tbc_block tbc_full;	/* blocks past a full table */
static unsigned int tbc_used;
static pthread_mutex_t tbc_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tbc_counting;	/* read and written with __atomic */
static char *tbc_dir;

static void tbc_exec(unsigned int vcpu, void *udata)
{
	struct tbc_block *b = udata;

	if (__atomic_load_n(&tbc_counting, __ATOMIC_RELAXED) && vcpu < TBC_VCPUS)
		b->execs[vcpu]++;
}

/* The entry of @vaddr, added if new; the caller holds tbc_lock. */
static struct tbc_block *tbc_find(uint64_t vaddr)
{
	uint64_t h = (vaddr * 0x9e3779b97f4a7c15ULL) >> (64 - TBC_BITS);
	struct tbc_block *b;

	for (;; h++) {
		b = &tbc_table[h & (TBC_SLOTS - 1)];
		if (b->used && b->vaddr == vaddr)
			return b;
		if (!b->used)
			break;
	}
	/* Half full at most, so that a search ends soon. */
	if (tbc_used >= TBC_SLOTS / 2)
		return &tbc_full;
	tbc_used++;
	b->used = true;
	b->vaddr = vaddr;
	return b;
}

static void tbc_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct tbc_block *b;

	pthread_mutex_lock(&tbc_lock);
	b = tbc_find(qemu_plugin_tb_vaddr(tb));
	/* A block retranslated at the same address may have changed length:
	 * its executions count with the latest length.
	 */
	b->insns = qemu_plugin_tb_n_insns(tb);
	pthread_mutex_unlock(&tbc_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tbc_exec, TBC_CB_NO_REGS, b);
}

static bool tbc_exists(const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tbc_dir, name);
	return !stat(path, &st);
}

/* Opens and closes the window as the guest's marker files appear. */
static void *tbc_watch(void *arg)
{
	while (!tbc_exists("pcload.start"))
		usleep(2000);
	__atomic_store_n(&tbc_counting, true, __ATOMIC_RELAXED);
	while (!tbc_exists("pcload.stop"))
		usleep(2000);
	__atomic_store_n(&tbc_counting, false, __ATOMIC_RELAXED);
	return NULL;
}

static void tbc_exit(qemu_plugin_id_t id, void *udata)
{
	char path[4096];
	unsigned int i, v;
	FILE *f;

	__atomic_store_n(&tbc_counting, false, __ATOMIC_RELAXED);
	snprintf(path, sizeof(path), "%s/tbcount.txt", tbc_dir);
	f = fopen(path, "w");
	if (!f)
		return;
	for (i = 0; i <= TBC_SLOTS; i++) {
		struct tbc_block *b = i < TBC_SLOTS ? &tbc_table[i] : &tbc_full;
		uint64_t any = 0;

		for (v = 0; v < TBC_VCPUS; v++)
			any |= b->execs[v];
		if (!any)
			continue;
		fprintf(f, "%llx %u", (unsigned long long)b->vaddr, b->insns);
		for (v = 0; v < TBC_VCPUS; v++)
			fprintf(f, " %llu", (unsigned long long)b->execs[v]);
		fputc('\n', f);
	}
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
			int argc, char **argv)
{
	pthread_t t;
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			tbc_dir = argv[i] + 4;
	if (!tbc_dir) {
		fprintf(stderr, "tbcount: no dir=DIR argument\n");
		return -1;
	}
	tbc_table = calloc(TBC_SLOTS, sizeof(*tbc_table));
	if (!tbc_table || pthread_create(&t, NULL, tbc_watch, NULL))
		return -1;
	pthread_detach(t);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tbc_trans);
	qemu_plugin_register_atexit_cb(id, tbc_exit, NULL);
	return 0;
}
