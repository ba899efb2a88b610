function r = sm_simulate(model, varargin)
% SM_SIMULATE  Walks MODEL for a number of steps from a state.
%   r = sm_simulate('simplest', 'x0', [0.2 -0.2 0.4 -0.015], 'steps', 5)
% Options: those of 'stridemap simulate' with '_' for '-': set, x0, steps
% (default 10), dt (sampling interval), rtol, atol, method, max_order, tmax,
% max_step.  r holds the columns of its CSV (kind, step, time, phase, event,
% one field per state and sampled value, also all states as r.x), r.steps
% completed, r.status ('ok', or how the walk ended, e.g. 'fell_forward') and
% r.step_metrics, one entry per completed step.
  r = stridemap_mex('simulate', model, sm_opts(varargin));
end
