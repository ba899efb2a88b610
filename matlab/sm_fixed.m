function r = sm_fixed(model, varargin)
% SM_FIXED  A gait of MODEL: a fixed point of the stride map and its stability.
%   r = sm_fixed('simplest', 'set', struct('gamma', 0.009))
%   r = sm_fixed('models/compass.yaml', struct('guess', [...], 'period', 2))
% MODEL is a built-in walker (sm_models) or a model file's path.  Options are
% the flags of 'stridemap fixed' with '_' for '-': set (a struct of parameter
% values), guess, period, rtol, atol, method, max_order, tol, max_iter,
% fd_step, central, newton_update, jacobian, tmax, max_step, mu.
% r has the fields of 'stridemap fixed --json' (eigenvalues as [re im] rows;
% not yet restricted_map);
% r.status says whether a gait was found ('ok'), or why not (e.g.
% 'fell_forward' in r.stride_status).  Bad input raises an error whose
% identifier is stridemap:STATUS, e.g. stridemap:bad_param.
  r = stridemap_mex('fixed', model, sm_opts(varargin));
end
