function r = sm_params(model)
% SM_PARAMS  The parameters of MODEL (name, default, min, max, unit,
% description, integer) and its state names, as 'stridemap params --json'.
  r = stridemap_mex('params', model);
end
