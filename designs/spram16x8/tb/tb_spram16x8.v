`timescale 1ns/1ps
// Self-checking testbench for spram16x8: fills every address, reads them all
// back, then runs 3000 random read/write/idle/reset cycles against an array
// model in the testbench, checking dout after every clock edge.
module tb_spram16x8;
    reg        clk = 1'b0;
    reg        rst, en, we;
    reg  [3:0] addr;
    reg  [7:0] din;
    wire [7:0] dout;

    spram16x8 dut (.clk(clk), .rst(rst), .en(en), .we(we), .addr(addr), .din(din), .dout(dout));

    always #5 clk = ~clk;

    // xorshift32 PRNG with a fixed seed: identical stimulus on every simulator
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

    integer errors;
    integer n, r, k;
    reg [7:0] model [0:15];
    reg [7:0] m_dout;
    integer n_reads;

    task check;
        begin
            if (dout !== m_dout) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: dout=%h expected %h", $time, dout, m_dout);
            end
        end
    endtask

    task apply;   // drive one cycle of inputs, update the model at the edge, check after
        begin
            @(posedge clk);
            if (en && we) model[addr] = din;
            if (rst)      m_dout = 8'd0;
            else if (en)  m_dout = we ? din : model[addr];
            if (en && !we && !rst) n_reads = n_reads + 1;
            @(negedge clk);
            check;
        end
    endtask

    initial begin
        errors = 0; n_reads = 0;
        seed = 32'h5A4D_1608;
        m_dout = 8'd0;
        @(negedge clk);
        rst = 1'b1; en = 1'b0; we = 1'b0; addr = 4'd0; din = 8'd0;
        apply;
        rst = 1'b0;
        // write every address with a distinct pattern
        for (k = 0; k < 16; k = k + 1) begin
            en = 1'b1; we = 1'b1; addr = k[3:0]; din = (k * 8'h1D) ^ 8'hA5;
            apply;
        end
        // read every address back
        for (k = 0; k < 16; k = k + 1) begin
            en = 1'b1; we = 1'b0; addr = 4'd15 - k[3:0]; din = 8'hFF;
            apply;
        end
        for (n = 0; n < 3000; n = n + 1) begin
            r    = urand(0) % 100;
            rst  = (r < 2);
            r    = urand(0) % 100;
            en   = (r < 85);
            r    = urand(0) % 100;
            we   = (r < 35);
            addr = urand(0);
            din  = urand(0);
            apply;
        end
        if (n_reads < 1000) begin
            $display("coverage: only %0d reads", n_reads);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
