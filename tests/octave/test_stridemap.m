% The Octave/MATLAB interface (matlab/) against the stridemap program: run by
% tests/test_octave.sh, which writes the program's outputs into DIR first.
% Prints one line per check and CMocka's summary lines, so that
% scripts/test.sh counts these checks with the rest.
function test_stridemap(dir)
  checks = {
    @() same_fixed(dir, 'simplest', struct('set', struct('gamma', 0.009)), 'simplest.json')
    @() same_fixed(dir, 'compass', struct(), 'compass.json')
    @() same_fixed(dir, model_file('compass.yaml'), struct(), 'compass_yaml.json')
    @() bad_param_is_an_error()
    @() unknown_param_is_an_error()
    @() unknown_model_is_an_error()
    @() fall_is_a_result()
    @() failed_newton_is_a_result(dir)
    @() same_simulation(dir)
    @() same_branch(dir)
    @() params_and_models()
    @() disagreeing_steps_are_an_error()
  };
  names = {'fixed simplest', 'fixed compass', 'fixed models/compass.yaml', 'bad parameter', ...
           'unknown parameter', 'unknown model', 'fall', 'Newton after a fall', 'simulate', ...
           'continue', 'params and models', 'disagreeing steps'};
  failed = 0;
  for k = 1:numel(checks)
    try
      checks{k}();
      printf('[       OK ] %s\n', names{k});
    catch err
      printf('[  FAILED  ] %s: %s\n', names{k}, err.message);
      failed = failed + 1;
    end
  end
  printf('[  PASSED  ] %d test(s).\n', numel(checks) - failed);
  if failed
    printf('[  FAILED  ] %d test(s), listed above.\n', failed);
    exit(1);
  end
end

function p = model_file(name)
  p = fullfile(getenv('SM_SOURCE_DIR'), 'models', name);
end

% Every number the program prints (17 significant digits, which give back
% the double) equals the interface's: the same library on the same input.
% The numbers are read from the JSON text with str2double, which rounds
% correctly (Octave 7's jsondecode can be off in the last digit).
function same_fixed(dir, model, opts, json)
  text = fileread(fullfile(dir, json));
  want = jsondecode(text);
  got = sm_fixed(model, opts);
  expect(strcmp(got.status, want.status), 'status %s, the program says %s', got.status, want.status);
  expect(got.converged && want.converged, 'not converged');
  n = numel(got.free_coordinates);
  expect_equal(got.fixed_point, json_numbers(text, 'fixed_point'), 'fixed_point');
  expect_equal(got.eigenvalues, reshape(json_numbers(text, 'eigenvalues'), 2, n)', 'eigenvalues');
  expect_equal(got.jacobian, reshape(json_numbers(text, 'jacobian'), n, n)', 'jacobian');
  for f = {'max_abs_eigenvalue', 'step_period', 'step_length', 'speed', 'residual'}
    expect_equal(got.(f{1}), json_numbers(text, f{1}), f{1});
  end
  expect(got.stable == want.stable, 'stable');
  expect(isfield(want, 'eigenvectors') == isfield(got, 'eigenvectors'), 'eigenvectors present in one only');
  if isfield(want, 'eigenvectors')
    expect_equal(got.eigenvectors, reshape(json_numbers(text, 'eigenvectors'), n, n)', 'eigenvectors');
  end
  expect(isfield(want, 'modes') == isfield(got, 'modes'), 'modes present in one only');
  if isfield(want, 'modes')
    expect(isequal(got.modes, want.modes(:)'), 'modes');
  end
  if isstruct(want.contact)
    expect(got.contact.unilateral == want.contact.unilateral && got.contact.no_slip == want.contact.no_slip, 'contact');
  else
    expect(~isfield(got, 'contact'), 'contact where the program has none');
  end
  expect(isequal(got.state_names, want.state_names(:)'), 'state_names');
  expect(isequal(got.free_coordinates, want.free_coordinates(:)'), 'free_coordinates');
  expect(got.iterations == want.iterations, 'iterations');
  expect(strcmp(got.jacobian_method, want.jacobian_method), 'jacobian_method');
  % a model file's "bodies.hip_z.mass" is the field bodies_hip_z_mass
  names = {sm_params(model).params.name};
  fields = fieldnames(got.params);
  expect(numel(fields) == numel(names), '%d parameters, the model has %d', numel(fields), numel(names));
  for k = 1:numel(names)
    expect_equal(got.params.(fields{k}), json_numbers(text, names{k}), ['params.' names{k}]);
  end
end

% The numbers of the first "key": value in a JSON text (a number, or an
% array of any depth, flattened in order; null is NaN).
function v = json_numbers(text, key)
  at = regexp(text, ['"' regexptranslate('escape', key) '":\s*'], 'end', 'once');
  expect(~isempty(at), 'the program printed no "%s"', key);
  rest = text(at + 1:end);
  if rest(1) == '['
    depth = cumsum((rest == '[') - (rest == ']'));
    rest = rest(1:find(depth == 0, 1));
  else
    rest = regexp(rest, '^[^,}\s]+', 'match', 'once');
  end
  tokens = regexp(rest, '-?[0-9][0-9.eE+-]*|null', 'match');
  v = str2double(tokens);
end

function bad_param_is_an_error()
  try
    sm_fixed('simplest', 'set', struct('gamma', 2));
  catch err
    expect(strcmp(err.identifier, 'stridemap:bad_param'), 'identifier %s', err.identifier);
    expect(~isempty(strfind(err.message, 'gamma')), 'message without the parameter: %s', err.message);
    return;
  end
  error('gamma = 2 (out of range) raised no error');
end

% Steps given together must agree, as the program's --step and --step-max
% (sm_cont_steps_apply), the message in opts' names.
function disagreeing_steps_are_an_error()
  try
    sm_continue('logistic', 'param', 'r', 'to', 3.2, 'step', 1, 'step_max', 0.5);
  catch err
    expect(strcmp(err.identifier, 'stridemap:bad_option'), 'identifier %s', err.identifier);
    expect(~isempty(strfind(err.message, 'opts.step 1 is larger than opts.step_max 0.5')), 'message: %s', err.message);
    return;
  end
  error('step 1 above step_max 0.5 raised no error');
end

function unknown_param_is_an_error()
  try
    sm_fixed('simplest', 'set', struct('gama', 0.01));
  catch err
    expect(strcmp(err.identifier, 'stridemap:unknown_param'), 'identifier %s', err.identifier);
    return;
  end
  error('an unknown parameter raised no error');
end

function unknown_model_is_an_error()
  try
    sm_fixed('no_such_walker');
  catch err
    expect(strcmp(err.identifier, 'stridemap:unknown_model'), 'identifier %s', err.identifier);
    return;
  end
  error('an unknown model raised no error');
end

% A walker started leaning back with no speed falls backwards on its first
% step: a result with that status, no error, the start row and no step done.
function fall_is_a_result()
  r = sm_simulate('simplest', 'x0', [0.3 -0.1 0.6 0], 'steps', 3);
  expect(strcmp(r.status, 'fell_backward'), 'status %s', r.status);
  expect(r.steps == 0, 'steps %d', r.steps);
  expect(strcmp(r.kind{1}, 'start') && strcmp(r.kind{end}, 'fail'), 'first and last rows %s, %s', r.kind{1}, r.kind{end});
end

function failed_newton_is_a_result(dir)
  want = jsondecode(fileread(fullfile(dir, 'simplest_fall.json')));
  r = sm_fixed('simplest', 'guess', [1 0 2 0]);
  expect(strcmp(r.status, want.status) && strcmp(r.stride_status, want.stride_status), ...
         'status %s/%s, the program says %s/%s', r.status, r.stride_status, want.status, want.stride_status);
  expect(~r.converged && isempty(r.eigenvalues), 'a failed search has no eigenvalues');
end

% The program's CSV prints 15 significant digits.
function same_simulation(dir)
  csv = fullfile(dir, 'simulate.csv');
  fid = fopen(csv);
  header = strsplit(fgetl(fid), ',');
  % as text, then str2double: textscan's %f can be off in the last digit
  rows = textscan(fid, repmat('%s ', 1, numel(header)), 'Delimiter', ',');
  rows(6:end) = cellfun(@str2double, rows(6:end), 'UniformOutput', false);
  rows{3} = str2double(rows{3});
  fclose(fid);
  r = sm_simulate('compass', 'steps', 2, 'dt', 0.05);
  expect(numel(r.kind) == numel(rows{1}), '%d rows, the program wrote %d', numel(r.kind), numel(rows{1}));
  expect(isequal(r.kind, rows{1}), 'kind');
  expect(isequal(r.phase, rows{4}), 'phase');
  % time with 12 significant digits, the rest with 15, as the program prints them
  expect(isequal(str2double(cellstr(num2str(r.time, '%.12g'))), rows{3}), 'column time');
  for k = 6:numel(header)
    col = r.(header{k});
    expect(isequal(str2double(cellstr(num2str(col, '%.15g'))), rows{k}), 'column %s', header{k});
  end
end

function same_branch(dir)
  fid = fopen(fullfile(dir, 'continue.csv'));
  header = strsplit(fgetl(fid), ',');
  cols = textscan(fid, repmat('%s ', 1, numel(header)), 'Delimiter', ',');
  fclose(fid);
  want = str2double([cols{:}]);
  r = sm_continue('simplest', 'param', 'gamma', 'from', 0.005, 'to', 0.007, 'max_points', 8);
  expect(numel(r.value) == rows(want), '%d points, the program wrote %d', numel(r.value), rows(want));
  expect(strcmp(r.stop, 'max_points') || strcmp(r.stop, 'bound'), 'stop %s', r.stop);
  for k = [1 2 3 5:numel(header) - 1]
    if strcmp(header{k}, 'stable')
      continue;
    end
    col = r.(header{k});
    expect(isequal(str2double(cellstr(num2str(col, '%.15g'))), want(:, k)), 'column %s', header{k});
  end
end

function params_and_models()
  p = sm_params('compass');
  expect(any(strcmp({p.params.name}, 'mh')), 'compass has no mh');
  m = sm_models();
  expect(any(strcmp({m.name}, 'simplest')), 'no simplest among the models');
end

function expect(ok, varargin)
  if ~ok
    error(varargin{:});
  end
end

function expect_equal(got, want, what)
  expect(isequal(size(got), size(want)), '%s: size %s, the program has %s', what, mat2str(size(got)), mat2str(size(want)));
  bad = find(got(:) ~= want(:), 1);
  expect(isempty(bad), '%s(%d) = %.17g, the program printed %.17g', what, bad, got(bad), want(bad));
end
