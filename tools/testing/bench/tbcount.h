/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of QEMU's TCG plugin API (API version 1, QEMU 4.2 to 8.x) that
 * tbcount.c uses, declared from QEMU's documented interface
 * (include/qemu/qemu-plugin.h in QEMU's tree), since Debian ships no
 * header for it. QEMU resolves these in its own binary.
 */
#ifndef TBCOUNT_H
#define TBCOUNT_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info_t;

/* enum qemu_plugin_cb_flags: the callback reads no register. */
enum tbc_cb_flags { TBC_CB_NO_REGS };

typedef void (*tbc_tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*tbc_vcpu_udata_cb)(unsigned int vcpu, void *udata);
typedef void (*tbc_udata_cb)(qemu_plugin_id_t id, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tbc_tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  tbc_vcpu_udata_cb cb,
					  enum tbc_cb_flags flags, void *udata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, tbc_udata_cb cb,
				    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

#endif
