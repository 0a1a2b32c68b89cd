`timescale 1ns/1ps
// Self-checking testbench for dram_refresh_sched. A model is stepped at each rising edge
// and every output is compared each cycle. The directed part reaches every functional
// bin of coverage.yaml: a first refresh with every bank closed, misses opening all four
// banks, eight row hits in a row, a conflict, then a bus kept busy for 600 cycles (the
// refresh postponed up to eight times, then forced), and the postponed refreshes caught
// up back to back on an idle bus; then about 9,000 cycles of random traffic (sparse,
// dense and busy phases, rows from a small or a full set) with a few resets.
module tb_dram_refresh_sched;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        req_valid;
    reg  [1:0] req_bank;
    reg  [3:0] req_row;
    wire       req_ready, forced;
    wire [2:0] state, hit_streak, wait_cnt;
    wire [5:0] refi_cnt;
    wire [3:0] ref_pend, open_valid;
    wire [1:0] result, res_bank;

    dram_refresh_sched dut (.clk(clk), .rst_n(rst_n), .req_valid(req_valid), .req_bank(req_bank),
                            .req_row(req_row), .req_ready(req_ready), .state(state), .refi_cnt(refi_cnt),
                            .ref_pend(ref_pend), .open_valid(open_valid), .result(result), .res_bank(res_bank),
                            .hit_streak(hit_streak), .wait_cnt(wait_cnt), .forced(forced));

    always #5 clk = ~clk;

    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    // model: state 0 ready, 1 act, 2 pre, 3 access, 4 preall, 5 refresh
    integer m_state, m_refi, m_pend, m_open, m_res, m_bank, m_streak, m_wait, m_forced, m_row;
    integer m_rows [0:3];
    integer errors, n, k, n_ref, n_forced, n_hit, n_conf, max_pend;
    integer dens, rowset;

    task check;
        begin
            if (state !== m_state[2:0] || refi_cnt !== m_refi[5:0] || ref_pend !== m_pend[3:0] ||
                open_valid !== m_open[3:0] || result !== m_res[1:0] || res_bank !== m_bank[1:0] ||
                hit_streak !== m_streak[2:0] || wait_cnt !== m_wait[2:0] || forced !== m_forced[0] ||
                req_ready !== (m_state == 0 && m_pend != 8)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: state=%0d refi=%0d pend=%0d open=%b res=%0d bank=%0d streak=%0d wait=%0d forced=%b expected %0d %0d %0d %b %0d %0d %0d %0d %0d",
                             $time, state, refi_cnt, ref_pend, open_valid, result, res_bank, hit_streak, wait_cnt,
                             forced, m_state, m_refi, m_pend, m_open[3:0], m_res, m_bank, m_streak, m_wait, m_forced);
            end
        end
    endtask

    task model_reset;
        begin
            m_state = 0; m_refi = 0; m_pend = 0; m_open = 0; m_res = 0; m_bank = 0; m_streak = 0; m_wait = 0;
            m_forced = 0; m_row = 0; m_rows[0] = 0; m_rows[1] = 0; m_rows[2] = 0; m_rows[3] = 0;
        end
    endtask

    task model_step;
        reg tick, done;
        integer old_pend;
        begin
            old_pend = m_pend;
            tick = (m_refi == 63);
            done = (m_state == 5 && m_wait == 7);
            m_refi = (m_refi + 1) % 64;
            if (tick && !done && m_pend != 8) m_pend = m_pend + 1;
            else if (done && !tick) m_pend = m_pend - 1;
            if (m_pend > max_pend) max_pend = m_pend;
            case (m_state)
                0: begin
                    m_wait = 0;
                    if (old_pend != 0 && (!req_valid || old_pend == 8)) begin
                        m_forced = req_valid; n_ref = n_ref + 1;
                        if (req_valid) n_forced = n_forced + 1;
                        m_state = (m_open != 0) ? 4 : 5;
                    end else if (req_valid) begin
                        m_bank = req_bank; m_row = req_row;
                        if (!((m_open >> req_bank) & 1)) begin
                            m_state = 1; m_res = 2; m_streak = 0;
                        end else if (m_rows[req_bank] == req_row) begin
                            m_state = 3; m_res = 1; n_hit = n_hit + 1;
                            if (m_streak != 7) m_streak = m_streak + 1;
                        end else begin
                            m_state = 2; m_res = 3; m_streak = 0; n_conf = n_conf + 1;
                        end
                    end
                end
                2: begin
                    m_wait = m_wait + 1;
                    if (m_wait == 2) begin m_open = m_open & ~(1 << m_bank); m_state = 1; m_wait = 0; end
                end
                1: begin
                    m_wait = m_wait + 1;
                    if (m_wait == 2) begin
                        m_open = m_open | (1 << m_bank); m_rows[m_bank] = m_row; m_state = 3; m_wait = 0;
                    end
                end
                3: m_state = 0;
                4: begin
                    m_wait = m_wait + 1;
                    if (m_wait == 2) begin m_open = 0; m_state = 5; m_wait = 0; end
                end
                default: begin
                    m_wait = m_wait + 1;
                    if (m_wait == 8) begin m_state = 0; m_wait = 0; m_forced = 0; end
                end
            endcase
        end
    endtask

    task cycle;
        input v; input [1:0] b; input [3:0] r;
        begin
            @(negedge clk);
            check;
            req_valid = v; req_bank = b; req_row = r;
            @(posedge clk);
            model_step;
        end
    endtask

    // one request, held until it is taken in READY (or a refresh starts ahead of it)
    task request;
        input [1:0] b; input [3:0] r;
        begin
            cycle(1, b, r);
            while (!(m_state == 1 || m_state == 2 || m_state == 3)) cycle(1, b, r);
            while (m_state != 0) cycle(0, b, r);
        end
    endtask

    task idle;
        input integer c;
        integer j;
        begin
            for (j = 0; j < c; j = j + 1) cycle(0, urand(0), urand(0));
        end
    endtask

    initial begin
        errors = 0; n_ref = 0; n_forced = 0; n_hit = 0; n_conf = 0; max_pend = 0;
        seed = 32'hD4A3_0F5E;
        req_valid = 0; req_bank = 0; req_row = 0;
        model_reset;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        @(posedge clk); model_step;
        idle(80);                                   // the first refresh: every bank closed
        request(0, 3); request(1, 7); request(2, 1); request(3, 9);   // four misses
        for (k = 0; k < 8; k = k + 1) request(0, 3);                   // eight hits
        request(0, 5);                              // a conflict
        request(0, 5); request(0, 5);
        for (k = 0; k < 600; k = k + 1)             // a busy bus: postponed, then forced
            cycle(1, k / 40, (k % 3 == 0) ? 4'd2 : 4'd6);
        idle(100);                                  // the postponed refreshes caught up
        for (n = 0; n < 80; n = n + 1) begin
            k = urand(0) % 8;
            dens = (k < 3) ? 2 : (k < 5) ? 8 : 1;
            rowset = (urand(0) % 2) ? 2 : 16;
            for (k = 0; k < ((dens == 1) ? 100 + urand(0) % 400 : 100); k = k + 1)
                cycle((urand(0) % dens) == 0, urand(0), urand(0) % rowset);
            if (urand(0) % 25 == 0) begin
                @(negedge clk); check; req_valid = 0;
                rst_n = 1'b0;
                #1 model_reset;
                check;
                @(posedge clk); #1 rst_n = 1'b1;
            end
        end
        @(negedge clk);
        check;
        if (n_ref < 50 || n_forced < 3 || n_hit < 100 || n_conf < 100 || max_pend != 8) begin
            $display("coverage: refreshes=%0d forced=%0d hits=%0d conflicts=%0d most postponed=%0d",
                     n_ref, n_forced, n_hit, n_conf, max_pend);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d refreshes, %0d forced, %0d hits, %0d conflicts)",
                                  n_ref, n_forced, n_hit, n_conf);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
