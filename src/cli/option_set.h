/* option_set.h - the setters and value forms the option table's rows name (options.c): a
 * setter (option_setter, options.h) checks an option's value and stores it in struct cli; a form
 * (option_row.is_form) tells the values of one row from another row's of the same name. A new
 * option is a row in options.c and, unless an existing setter fits, a setter here. */
#ifndef FSMIX_OPTION_SET_H
#define FSMIX_OPTION_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "options.h"

/* the forms of --threads: a list (a sweep, run only) or a count (an override) */
bool is_list(const char *v);
bool is_count(const char *v);

/* the setters: one per option, or per form of an option of two rows */
enum set_result set_time(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_location(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_threads(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_thread_list(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_iodepth(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_iodepth_list(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_key(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_seed(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_fidelity(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ramp(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_verify(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_strict(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_continue(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_mpi(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_cleanup(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_shared_tree(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_build_threads(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_json(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_csv(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_format(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_interval(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_lat_log(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_crash_after(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_durability_log(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_model(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_cut_at(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_sweep(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_repeat(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_picture(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_force(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_markdown(struct cli *c, const char *v, char *err, size_t errlen);
/* crashtest's (option_ct.c) */
enum set_result set_ct_fs(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ct_size(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ct_mkfs(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ct_mount(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ct_states(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ct_reorder(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ct_state(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ct_image(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ct_keep(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ct_run_dir(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_ct_fault(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_help(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_version(struct cli *c, const char *v, char *err, size_t errlen);
enum set_result set_help_man(struct cli *c, const char *v, char *err, size_t errlen);

#endif
