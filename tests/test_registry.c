/* The registry (models/registry.c): the built-in list, opening by name or
 * path, the model path search with STRIDEMAP_MODEL_PATH, unknown names, and
 * release through the model's own hook. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#ifndef SM_SOURCE_DIR
#define SM_SOURCE_DIR "."
#endif

/* The walkers `stridemap models` lists, in its order (README, "The program"). */
static const char *const builtin_names[] = {"compass", "rimless", "simplest", "slip",
                                            "logistic", "foldmap", "delayed_logistic"};
#define N_BUILTIN (sizeof builtin_names / sizeof builtin_names[0])

static void test_builtins_listed_in_order_and_found(void **state)
{
    (void)state;
    assert_int_equal(sm_registry_count(), N_BUILTIN);
    for (size_t i = 0; i < N_BUILTIN; i++) {
        const sm_model *m = sm_registry_at(i);
        assert_non_null(m);
        assert_string_equal(m->name, builtin_names[i]);
        assert_ptr_equal(sm_registry_find(builtin_names[i]), m);
        char why[256] = "";
        assert_status(sm_model_validate(m, why, sizeof why), SM_OK);
        /* static models own nothing */
        assert_null(m->release);
    }
    assert_null(sm_registry_at(N_BUILTIN));
    assert_null(sm_registry_at((size_t)-1));
}

static void test_find_unknown_is_null(void **state)
{
    (void)state;
    assert_null(sm_registry_find("no_such_walker"));
    assert_null(sm_registry_find(""));
    assert_null(sm_registry_find("Simplest")); /* names are exact */
    assert_null(sm_registry_find("compass_file")); /* a file's model is not built in */
}

static void test_open_builtin_is_the_static_model(void **state)
{
    (void)state;
    const sm_model *m = NULL;
    char why[512] = "";
    assert_status(sm_registry_open("simplest", &m, why, sizeof why), SM_OK);
    assert_ptr_equal(m, sm_registry_find("simplest"));
    sm_registry_close(m); /* a no-op: the next open gets the same model */
    assert_status(sm_registry_open("simplest", &m, why, sizeof why), SM_OK);
    assert_string_equal(m->name, "simplest");
    sm_registry_close(m);
    sm_registry_close(NULL);
}

static void test_open_file_by_path(void **state)
{
    (void)state;
    const sm_model *m = NULL;
    char why[2048] = "";
    assert_status(sm_registry_open(SM_SOURCE_DIR "/models/compass.yaml", &m, why, sizeof why), SM_OK);
    assert_non_null(m);
    assert_string_equal(m->name, "compass_file"); /* the file's name: key */
    assert_int_equal(m->n_state, 4); /* leg_a, leg_b and their rates (integrate: reduced) */
    /* a file's model owns memory and says how to free it */
    assert_non_null(m->release);
    sm_registry_close(m); /* the sanitizer build's leak check holds this */
}

static void test_open_missing_file(void **state)
{
    (void)state;
    const sm_model *m = (const sm_model *)&m;
    char why[2048] = "";
    assert_status(sm_registry_open("/nonexistent/dir/walker.yaml", &m, why, sizeof why), SM_IO_ERROR);
    assert_null(m);
    assert_non_null(strstr(why, "/nonexistent/dir/walker.yaml"));
}

static void test_open_unknown_name(void **state)
{
    (void)state;
    unsetenv("STRIDEMAP_MODEL_PATH");
    const sm_model *m = (const sm_model *)&m;
    char why[2048] = "";
    assert_status(sm_registry_open("no_such_walker", &m, why, sizeof why), SM_UNKNOWN_MODEL);
    assert_null(m);
    /* says what was asked for, where it looked, and where to see the list */
    assert_non_null(strstr(why, "'no_such_walker'"));
    assert_non_null(strstr(why, "no_such_walker.yaml"));
    assert_non_null(strstr(why, "STRIDEMAP_MODEL_PATH"));
    assert_non_null(strstr(why, "sm_registry_count"));
    /* a name with a slash is a path, not searched for, and not a built-in */
    assert_status(sm_registry_open("models/compass", &m, why, sizeof why), SM_UNKNOWN_MODEL);
}

/* Copies models/compass.yaml to dir/name.yaml with the hip mass set to hip. */
static void write_walker(const char *dir, const char *name, double hip)
{
    char path[1024], line[512];
    FILE *in = fopen(SM_SOURCE_DIR "/models/compass.yaml", "r");
    assert_non_null(in);
    snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    bool found = false;
    while (fgets(line, sizeof line, in)) {
        if (strncmp(line, "  - {name: hip_z,", 17) == 0) {
            fprintf(out, "  - {name: hip_z, parent: hip_x, joint: slide, axis: [0, 0, 1], mass: %.17g}\n", hip);
            found = true;
            continue;
        }
        fputs(line, out);
    }
    assert_true(found);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

static double hip_mass(const sm_model *m)
{
    const int i = sm_model_param_index(m, "bodies.hip_z.mass");
    if (i < 0) fail_msg("no parameter bodies.hip_z.mass in %s", m->name);
    return m->params[i].value;
}

static void test_model_path_search(void **state)
{
    (void)state;
    char a[] = "/tmp/sm_registry_a_XXXXXX", b[] = "/tmp/sm_registry_b_XXXXXX";
    assert_non_null(mkdtemp(a));
    assert_non_null(mkdtemp(b));
    write_walker(a, "walker", 12.0);
    write_walker(b, "walker", 13.0);
    write_walker(b, "other", 14.0);

    /* the directories in order: the variable's entries (empty ones skipped),
     * then ./models, then the installed directory, then no more */
    char env[256], dir[1024];
    snprintf(env, sizeof env, "%s::%s", a, b);
    assert_int_equal(setenv("STRIDEMAP_MODEL_PATH", env, 1), 0);
    assert_string_equal(sm_registry_model_dir(0, dir, sizeof dir), a);
    assert_string_equal(sm_registry_model_dir(1, dir, sizeof dir), b);
    assert_string_equal(sm_registry_model_dir(2, dir, sizeof dir), "models");
    assert_string_equal(sm_registry_model_dir(3, dir, sizeof dir), STRIDEMAP_MODELDIR);
    assert_null(sm_registry_model_dir(4, dir, sizeof dir));

    /* the first directory that has NAME.yaml wins; later ones are searched */
    const sm_model *m = NULL;
    char why[2048] = "";
    assert_status(sm_registry_open("walker", &m, why, sizeof why), SM_OK);
    assert_close(hip_mass(m), 12.0, 0);
    sm_registry_close(m);
    assert_status(sm_registry_open("other", &m, why, sizeof why), SM_OK);
    assert_close(hip_mass(m), 14.0, 0);
    sm_registry_close(m);

    snprintf(env, sizeof env, "%s", b);
    assert_int_equal(setenv("STRIDEMAP_MODEL_PATH", env, 1), 0);
    assert_status(sm_registry_open("walker", &m, why, sizeof why), SM_OK);
    assert_close(hip_mass(m), 13.0, 0);
    sm_registry_close(m);

    /* a built-in name is never shadowed by a file */
    write_walker(b, "simplest", 15.0);
    assert_status(sm_registry_open("simplest", &m, why, sizeof why), SM_OK);
    assert_ptr_equal(m, sm_registry_find("simplest"));

    /* unset or empty: only ./models and the installed directory */
    assert_int_equal(setenv("STRIDEMAP_MODEL_PATH", "", 1), 0);
    assert_string_equal(sm_registry_model_dir(0, dir, sizeof dir), "models");
    unsetenv("STRIDEMAP_MODEL_PATH");
    assert_string_equal(sm_registry_model_dir(0, dir, sizeof dir), "models");
    assert_string_equal(sm_registry_model_dir(1, dir, sizeof dir), STRIDEMAP_MODELDIR);
    assert_null(sm_registry_model_dir(2, dir, sizeof dir));

    const char *names[] = {"walker", "other", "simplest"};
    for (size_t i = 0; i < 3; i++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/%s.yaml", i == 0 ? a : b, names[i]);
        unlink(path);
        if (i == 0) {
            snprintf(path, sizeof path, "%s/walker.yaml", b);
            unlink(path);
        }
    }
    assert_int_equal(rmdir(a), 0);
    assert_int_equal(rmdir(b), 0);
}

/* A model that owns something: the registry frees it through its hook. */
static int releases;
static void count_release(const sm_model *m)
{
    assert_string_equal(m->name, "owned");
    releases++;
}

static void test_close_calls_the_release_hook(void **state)
{
    (void)state;
    const sm_model owned = {.name = "owned", .release = count_release};
    releases = 0;
    sm_registry_close(&owned);
    assert_int_equal(releases, 1);
    /* a model without a hook, built in or not, is left alone */
    const sm_model plain = {.name = "plain"};
    sm_registry_close(&plain);
    sm_registry_close(sm_registry_find("compass"));
    assert_int_equal(releases, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins_listed_in_order_and_found),
        cmocka_unit_test(test_find_unknown_is_null),
        cmocka_unit_test(test_open_builtin_is_the_static_model),
        cmocka_unit_test(test_open_file_by_path),
        cmocka_unit_test(test_open_missing_file),
        cmocka_unit_test(test_open_unknown_name),
        cmocka_unit_test(test_model_path_search),
        cmocka_unit_test(test_close_calls_the_release_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
