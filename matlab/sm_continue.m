function r = sm_continue(model, varargin)
% SM_CONTINUE  Follows a gait of MODEL as one parameter moves.
%   r = sm_continue('simplest', 'param', 'gamma', 'from', 0.005, 'to', 0.015)
% Options: those of 'stridemap continue' with '_' for '-': param (required),
% from, to, step, step_min, step_max, max_points, set, guess, period, tol,
% rtol, atol, method.  r holds the columns of its CSV, one row per point
% (branch, the parameter under its own name and as r.value, type: '', 'EP',
% 'LP', 'PD', 'NS' or 'MX', the state, eigK_re/eigK_im, max_abs_eig, stable,
% step_period, step_length, speed, impact_energy_loss, iterations, residual,
% arclength, point_status: the CSV's status column), with r.stop saying why
% it ended and r.status the run's status.
  r = stridemap_mex('continue', model, sm_opts(varargin));
end
