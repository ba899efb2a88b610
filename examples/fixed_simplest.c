/* The simplest walker's gait at slope 0.009 from C: the same computation as
 * `stridemap fixed simplest --set gamma=0.009`.
 *
 *   cc fixed_simplest.c $(pkg-config --cflags --libs stridemap) -o fixed_simplest
 *   ./fixed_simplest
 *
 * Prints the library's version, then each state coordinate of the fixed
 * point and each multiplier at 17 significant digits.  Exit status 0 for a
 * gait, 1 for none, 2 when the library is not the one compiled against. */
#include <stdio.h>

#include <stridemap/stridemap.h>

int main(void)
{
    /* A program compiled against MAJOR (0.MINOR before 1.0) runs with that
     * one only; the soname makes the loader refuse others too. */
    int major, minor;
    if (sscanf(sm_version(), "%d.%d", &major, &minor) != 2 || major != STRIDEMAP_VERSION_MAJOR ||
        (major == 0 && minor != STRIDEMAP_VERSION_MINOR)) {
        fprintf(stderr, "compiled against stridemap %s, running with %s\n", STRIDEMAP_VERSION, sm_version());
        return 2;
    }
    printf("stridemap %s\n", sm_version());

    char why[512];
    const sm_model *m;
    if (sm_registry_open("simplest", &m, why, sizeof why) != SM_OK) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    double p[SM_MAX_PARAMS], x0[SM_MAX_STATE];
    sm_model_default_params(m, p);
    p[sm_model_param_index(m, "gamma")] = 0.009;
    m->guess(x0, p, m->data);

    sm_solver_options so;
    sm_newton_options no;
    sm_solver_options_default(&so);
    sm_newton_options_default(&no);
    sm_workspace *ws;
    if (sm_workspace_create(m, &so, &ws) != SM_OK) return 1;
    static sm_fixed_result r; /* large: SM_MAX_STATE^2 Jacobians */
    sm_fixed_point(ws, p, x0, &no, &r);
    if (r.converged) {
        for (size_t i = 0; i < m->n_state; i++) printf("%s %.17g\n", m->state_names[i], r.x[i]);
        for (size_t k = 0; k < r.n_free; k++) printf("eigenvalue %.17g %.17g\n", r.eig_re[k], r.eig_im[k]);
        printf("stable %s\n", r.stable ? "yes" : "no");
    } else {
        fprintf(stderr, "no gait: %s\n", sm_strerror(r.status));
    }
    sm_workspace_free(ws);
    sm_registry_close(m); /* a model file's walker is freed: m is no more */
    return r.converged ? 0 : 1;
}
