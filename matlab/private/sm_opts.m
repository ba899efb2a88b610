function opts = sm_opts(args)
% The options of the sm_* wrappers: a struct, or name/value pairs
% ('rtol', 1e-10, 'set', struct('gamma', 0.01)), or nothing.
  if isempty(args)
    opts = struct();
  elseif numel(args) == 1 && isstruct(args{1})
    opts = args{1};
  elseif mod(numel(args), 2) == 0 && all(cellfun(@ischar, args(1:2:end)))
    opts = struct();
    for k = 1:2:numel(args)
      opts.(args{k}) = args{k + 1};
    end
  else
    error('stridemap:bad_option', 'options are a struct or name/value pairs, e.g. ''rtol'', 1e-10');
  end
end
