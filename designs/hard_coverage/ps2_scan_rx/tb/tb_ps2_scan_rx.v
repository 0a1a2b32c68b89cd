`timescale 1ns/1ps
// Self-checking testbench for ps2_scan_rx. A PS/2 device model sends frames (bit periods
// of 2*H clock cycles, data changed while kclk is high) and the testbench checks every
// byte, error pulse, key event with its prefixes, and the saturating error count. The
// directed part reaches every functional bin of coverage.yaml; then 60 random frames
// (some with bad parity or stop bits) and a few glitchy stretches of kclk.
module tb_ps2_scan_rx;
    localparam H = 5;
    reg        clk = 1'b0;
    reg        rst;
    reg        kclk, kdat;
    wire       rx_valid, par_err, frm_err, start_err, timeout, key_valid, key_ext, key_brk, busy;
    wire [7:0] rx_byte, key_code;
    wire [2:0] err_cnt;
    wire [3:0] bitn;

    ps2_scan_rx dut (.clk(clk), .rst(rst), .kclk(kclk), .kdat(kdat), .rx_valid(rx_valid), .rx_byte(rx_byte),
                     .par_err(par_err), .frm_err(frm_err), .start_err(start_err), .timeout(timeout),
                     .key_valid(key_valid), .key_code(key_code), .key_ext(key_ext), .key_brk(key_brk),
                     .err_cnt(err_cnt), .bitn(bitn), .busy(busy));

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

    integer errors, n, i, n_rx, n_par, n_frm, n_start, n_tmo, n_key, m_err;
    reg [7:0] last_rx, last_key, code;
    reg       last_ext, last_brk, m_ext, m_brk;

    // monitor: counts the pulses, keeps the last byte and key
    always @(posedge clk) begin
        if (!rst) begin
            if (rx_valid)  begin n_rx = n_rx + 1; last_rx = rx_byte; end
            if (par_err)   n_par = n_par + 1;
            if (frm_err)   n_frm = n_frm + 1;
            if (start_err) n_start = n_start + 1;
            if (timeout)   n_tmo = n_tmo + 1;
            if (key_valid) begin n_key = n_key + 1; last_key = key_code; last_ext = key_ext; last_brk = key_brk; end
        end
    end

    task fail;
        input [8*48-1:0] what;
        begin
            errors = errors + 1;
            if (errors <= 10) $display("MISMATCH t=%0t: %0s", $time, what);
        end
    endtask

    task drive;
        input c; input d; input integer cycles;
        integer j;
        begin
            for (j = 0; j < cycles; j = j + 1) begin
                @(negedge clk);
                kclk = c; kdat = d;
            end
        end
    endtask

    task send_bit;
        input b;
        begin
            drive(1, b, H); drive(0, b, H);
        end
    endtask

    // one frame; good_par = 0 flips the parity bit; ends idle (H + 3 cycles)
    task send_frame;
        input [7:0] b; input good_par; input stop;
        integer k, c_rx, c_par, c_frm, c_key;
        begin
            c_rx = n_rx; c_par = n_par; c_frm = n_frm; c_key = n_key;
            send_bit(0);
            for (k = 0; k < 8; k = k + 1) send_bit(b[k]);
            send_bit(~^b ^ ~good_par);
            send_bit(stop);
            drive(1, 1, H + 3);
            if (!stop) begin
                if (n_frm != c_frm + 1 || n_rx != c_rx) fail("framing error expected");
                m_ext = 0; m_brk = 0; if (m_err != 7) m_err = m_err + 1;
            end else if (!good_par) begin
                if (n_par != c_par + 1 || n_rx != c_rx) fail("parity error expected");
                m_ext = 0; m_brk = 0; if (m_err != 7) m_err = m_err + 1;
            end else begin
                if (n_rx != c_rx + 1 || last_rx !== b) fail("byte not received");
                if (b == 8'hE0) m_ext = 1;
                else if (b == 8'hF0) m_brk = 1;
                else begin
                    if (n_key != c_key + 1 || last_key !== b || last_ext !== m_ext || last_brk !== m_brk)
                        fail("key event wrong");
                    m_ext = 0; m_brk = 0;
                end
            end
            if (err_cnt !== m_err[2:0]) fail("err_cnt wrong");
            if (busy || bitn !== 0) fail("busy after frame");
        end
    endtask

    // a start bit and `bits` data bits, then silence: a timeout
    task abandon;
        input integer bits;
        integer k, c_tmo;
        begin
            c_tmo = n_tmo;
            send_bit(0);
            for (k = 0; k < bits; k = k + 1) send_bit(k[0]);
            drive(1, 1, 100);
            if (n_tmo != c_tmo + 1) fail("timeout expected");
            m_ext = 0; m_brk = 0; if (m_err != 7) m_err = m_err + 1;
            if (err_cnt !== m_err[2:0]) fail("err_cnt wrong after timeout");
        end
    endtask

    initial begin
        seed = 32'h1234_5679; errors = 0;
        n_rx = 0; n_par = 0; n_frm = 0; n_start = 0; n_tmo = 0; n_key = 0; m_err = 0; m_ext = 0; m_brk = 0;
        rst = 1'b1; kclk = 1'b1; kdat = 1'b1;
        repeat (3) @(negedge clk);
        rst = 1'b0;
        drive(1, 1, 8);
        // a short glitch of kclk is filtered out
        drive(0, 1, 3); drive(1, 1, 10);
        if (n_start != 0) fail("glitch not filtered");
        send_bit(1); drive(1, 1, 8);
        if (n_start != 1 || busy) fail("start glitch expected");
        send_frame(8'h00, 1, 1); send_frame(8'hFF, 1, 1);
        send_frame(8'hE0, 1, 1); send_frame(8'h75, 1, 1);
        send_frame(8'hE0, 1, 1); send_frame(8'hA5, 1, 1);
        send_frame(8'hF0, 1, 1); send_frame(8'h1C, 1, 1);
        send_frame(8'hF0, 1, 1); send_frame(8'h83, 1, 1);
        send_frame(8'hE0, 1, 1); send_frame(8'hF0, 1, 1); send_frame(8'h75, 1, 1);
        send_frame(8'hE0, 1, 1); send_frame(8'hF0, 1, 1); send_frame(8'hA5, 1, 1);
        send_frame(8'hE0, 1, 1); send_frame(8'h5A, 0, 1);   // the error clears the prefix
        send_frame(8'h5A, 1, 0);
        abandon(3);
        for (n = 0; n < 5; n = n + 1) abandon(0);
        if (err_cnt !== 3'd7) fail("err_cnt not saturated");
        send_frame(8'h29, 1, 1);
        for (n = 0; n < 60; n = n + 1) begin
            i = urand(0) % 16;
            code = (i < 3) ? 8'hE0 : (i < 6) ? 8'hF0 : urand(0);
            send_frame(code, (urand(0) % 8) != 0, (urand(0) % 8) != 0);
            if (urand(0) % 10 == 0) begin
                drive(0, 1, 1 + urand(0) % 3); drive(1, 1, 4);   // glitches
            end
        end
        if (n_key < 20 || n_par < 2 || n_frm < 2) fail("too few events");
        if (errors == 0) $display("TEST PASSED (%0d bytes, %0d keys, %0d errors)", n_rx, n_key, n_par + n_frm + n_tmo);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
