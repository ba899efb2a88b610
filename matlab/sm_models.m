function r = sm_models()
% SM_MODELS  The built-in walkers: a struct array of name, title, reference.
  r = stridemap_mex('models');
end
